"use client";

import ReactMarkdown, { type Components } from "react-markdown";

/**
 * Model output as markdown, never as HTML: raw HTML in the text stays text (react-markdown's default, no
 * rehype-raw), links open with rel=noreferrer, and images are not loaded (a remote image would be a request
 * leaving this machine, and a way to exfiltrate what the model saw): they show as their address.
 */
const components: Components = {
  a: ({ href, children }) => (
    <a href={href} target="_blank" rel="noreferrer noopener">
      {children}
    </a>
  ),
  img: ({ src, alt }) => (
    <span className="md-image" title="Images from model output are not loaded">
      [image{alt ? `: ${alt}` : ""}] {typeof src === "string" ? src : ""}
    </span>
  ),
};

export default function Markdown({ text }: { text: string }) {
  return (
    <div className="markdown">
      <ReactMarkdown components={components} skipHtml={false}>
        {text}
      </ReactMarkdown>
    </div>
  );
}
