"use client";

import { lazy, Suspense } from "react";

const Markdown = lazy(() => import("./markdown"));

/** Markdown loads after first paint (it is not needed to show the page); until then the text shows as plain text. */
export function MarkdownText({ text }: { text: string }) {
  return (
    <Suspense fallback={<div className="markdown plain">{text}</div>}>
      <Markdown text={text} />
    </Suspense>
  );
}
