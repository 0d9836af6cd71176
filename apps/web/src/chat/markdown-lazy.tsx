"use client";

import { lazy, Suspense } from "react";

const load = () => import("./markdown");
const Markdown = lazy(load);

/** Starts loading the renderer before the first message needs it. */
export function preloadMarkdown(): void {
  void load();
}

/** Markdown loads after first paint (it is not needed to show the page); until then the text shows as plain text. */
export function MarkdownText({ text }: { text: string }) {
  return (
    <Suspense fallback={<div className="markdown plain">{text}</div>}>
      <Markdown text={text} />
    </Suspense>
  );
}
