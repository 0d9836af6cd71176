"use client";

import "./monaco-setup";
import { DiffEditor } from "@monaco-editor/react";
import { languageForPath } from "./language";
import { cssFontFamily } from "@/lib/fonts";

/** A read-only side-by-side diff of a proposed file change. */
export default function MonacoDiff({ path, original, modified }: { path: string; original: string; modified: string }) {
  const language = languageForPath(path);
  return (
    <DiffEditor
      original={original}
      modified={modified}
      language={language}
      theme="cairn-dark"
      // Distinct model URIs, so the diff never shares a model with the file's open editor tab.
      originalModelPath={`inmemory://permission/original${path}`}
      modifiedModelPath={`inmemory://permission/modified${path}`}
      loading={<div className="editor-loading">Loading diff…</div>}
      options={{
        readOnly: true,
        originalEditable: false,
        renderSideBySide: true,
        minimap: { enabled: false },
        automaticLayout: true,
        scrollBeyondLastLine: false,
        fontFamily: cssFontFamily("--font-geist-mono", "monospace"),
        fontSize: 12,
      }}
    />
  );
}
