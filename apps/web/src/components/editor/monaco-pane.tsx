"use client";

import "@/monaco/setup";
import Editor, { type OnMount } from "@monaco-editor/react";
import { useEffect, useRef } from "react";
import { languageForPath } from "@/editor/language";

type Props = {
  path: string;
  value: string;
  readOnly: boolean;
  onChange(value: string): void;
  onSave(): void;
};

/** One Monaco editor; each path keeps its own model (and undo history) while its tab is open. */
export default function MonacoPane({ path, value, readOnly, onChange, onSave }: Props) {
  const saveRef = useRef(onSave);
  useEffect(() => {
    saveRef.current = onSave;
  }, [onSave]);

  const onMount: OnMount = (editor, monaco) => {
    editor.addCommand(monaco.KeyMod.CtrlCmd | monaco.KeyCode.KeyS, () => saveRef.current());
    editor.focus();
  };

  return (
    <Editor
      path={path}
      value={value}
      language={languageForPath(path)}
      theme="cairn-dark"
      onMount={onMount}
      onChange={(next) => onChange(next ?? "")}
      loading={<div className="editor-loading">Loading editor…</div>}
      options={{
        readOnly,
        automaticLayout: true,
        minimap: { enabled: false },
        fontFamily: "var(--font-geist-mono), ui-monospace, monospace",
        fontSize: 13,
        scrollBeyondLastLine: false,
        tabSize: 2,
      }}
    />
  );
}
