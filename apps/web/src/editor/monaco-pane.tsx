"use client";

import "./monaco-setup";
import Editor, { type Monaco, type OnMount } from "@monaco-editor/react";
import type { editor } from "monaco-editor";
import { useEffect, useRef } from "react";
import { languageForPath } from "./language";
import { cssFontFamily } from "@/lib/fonts";

type Props = {
  path: string;
  value: string;
  /** Changes when `value` was replaced from outside (a reload from disk) and must be pushed into the editor. */
  revision: number;
  readOnly: boolean;
  onChange(value: string): void;
  /** Ctrl/Cmd+S, with the text as Monaco holds it now (a render may not have caught up with the last keys yet). */
  onSave(value: string): void;
};

/**
 * One Monaco editor; each path keeps its own model (and undo history). Monaco owns the text while the user
 * types: `value` is pushed in only when the tab or its revision changes, so a render that lags behind fast
 * typing never writes older text back.
 */
export default function MonacoPane({ path, value, revision, readOnly, onChange, onSave }: Props) {
  const editorRef = useRef<editor.IStandaloneCodeEditor | null>(null);
  const monacoRef = useRef<Monaco | null>(null);
  const applied = useRef<{ path: string; revision: number } | null>(null);
  const saveRef = useRef(onSave);
  const latest = useRef({ path, value, revision });
  useEffect(() => {
    saveRef.current = onSave;
    latest.current = { path, value, revision };
  });

  const sync = () => {
    const instance = editorRef.current;
    const model = instance?.getModel();
    const wanted = latest.current;
    // The model switches to the tab's path in the Editor's own effect; until it has, there is nothing to sync.
    if (!instance || !model || model.uri.toString() !== monacoRef.current?.Uri.parse(wanted.path).toString()) return;
    const last = applied.current;
    if (last && last.path === wanted.path && last.revision === wanted.revision) return;
    applied.current = { path: wanted.path, revision: wanted.revision };
    // A model left from an earlier tab of the same path, or a reload from disk: show what the tab holds.
    if (model.getValue() !== wanted.value) {
      model.pushEditOperations([], [{ range: model.getFullModelRange(), text: wanted.value }], () => null);
    }
  };

  // biome-ignore lint/correctness/useExhaustiveDependencies: sync reads refs; it must run when the tab's path or revision changes.
  useEffect(sync, [path, revision]);

  const onMount: OnMount = (instance, monaco) => {
    editorRef.current = instance;
    monacoRef.current = monaco;
    instance.addCommand(monaco.KeyMod.CtrlCmd | monaco.KeyCode.KeyS, () => saveRef.current(instance.getValue()));
    instance.onDidChangeModel(() => sync());
    sync();
    instance.focus();
  };

  return (
    <Editor
      path={path}
      defaultValue={value}
      language={languageForPath(path)}
      theme="cairn-dark"
      onMount={onMount}
      onChange={(next) => onChange(next ?? "")}
      loading={<div className="editor-loading">Loading editor…</div>}
      options={{
        readOnly,
        automaticLayout: true,
        minimap: { enabled: false },
        fontFamily: cssFontFamily("--font-geist-mono", "monospace"),
        fontSize: 13,
        scrollBeyondLastLine: false,
        tabSize: 2,
      }}
    />
  );
}
