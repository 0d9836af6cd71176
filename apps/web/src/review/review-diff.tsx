"use client";

import "../editor/monaco-setup";
import { DiffEditor, type DiffOnMount } from "@monaco-editor/react";
import { useEffect, useRef } from "react";
import { languageForPath } from "../editor/language";
import { cssFontFamily } from "@/lib/fonts";

type DiffEditorInstance = Parameters<DiffOnMount>[0];
type Decorations = ReturnType<ReturnType<DiffEditorInstance["getModifiedEditor"]>["createDecorationsCollection"]>;

type Props = {
  path: string;
  original: string;
  modified: string;
  /** Lines of the modified side that carry a pending comment. */
  commentedLines: readonly number[];
  onLineClick(line: number, code: string): void;
};

/** The Changes panel's diff: the session's start on the left, the file now on the right; a click on a right-hand line comments on it. */
export default function ReviewDiff({ path, original, modified, commentedLines, onLineClick }: Props) {
  const editorRef = useRef<DiffEditorInstance | null>(null);
  const decorations = useRef<Decorations | null>(null);
  const onClick = useRef(onLineClick);
  useEffect(() => {
    onClick.current = onLineClick;
  }, [onLineClick]);

  const paint = () => {
    const editor = editorRef.current;
    if (!editor) return;
    const modifiedEditor = editor.getModifiedEditor();
    decorations.current ??= modifiedEditor.createDecorationsCollection();
    decorations.current.set(
      commentedLines.map((line) => ({
        range: { startLineNumber: line, startColumn: 1, endLineNumber: line, endColumn: 1 },
        options: { isWholeLine: true, className: "review-commented-line", linesDecorationsClassName: "review-commented-gutter" },
      })),
    );
  };
  useEffect(paint);

  const onMount: DiffOnMount = (editor) => {
    editorRef.current = editor;
    const modifiedEditor = editor.getModifiedEditor();
    modifiedEditor.onMouseDown((event) => {
      const line = event.target.position?.lineNumber;
      if (line === undefined) return;
      onClick.current(line, modifiedEditor.getModel()?.getLineContent(line) ?? "");
    });
    paint();
  };

  return (
    <DiffEditor
      original={original}
      modified={modified}
      language={languageForPath(path)}
      theme="cairn-dark"
      originalModelPath={`inmemory://changes/original/${path}`}
      modifiedModelPath={`inmemory://changes/modified/${path}`}
      loading={<div className="editor-loading">Loading diff…</div>}
      onMount={onMount}
      options={{
        readOnly: true,
        originalEditable: false,
        renderSideBySide: true,
        // Stay side by side in the narrow center column (Monaco otherwise switches to the inline view below 900 px).
        useInlineViewWhenSpaceIsLimited: false,
        ignoreTrimWhitespace: false,
        minimap: { enabled: false },
        automaticLayout: true,
        scrollBeyondLastLine: false,
        glyphMargin: false,
        fontFamily: cssFontFamily("--font-geist-mono", "monospace"),
        fontSize: 12,
      }}
    />
  );
}
