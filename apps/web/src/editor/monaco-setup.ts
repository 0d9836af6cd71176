// Client-only. Import for its side effects (`import "./monaco-setup"`): a type-only import would be elided and
// @monaco-editor/react would silently fetch Monaco from a CDN instead (STACK.md P3).
import * as monaco from "monaco-editor";
import { loader } from "@monaco-editor/react";

// Every label gets its worker from the bundle; without this the base editor worker fails to load (P4, P5).
self.MonacoEnvironment = {
  getWorker(_workerId: string, label: string): Worker {
    switch (label) {
      case "typescript":
      case "javascript":
        return new Worker(new URL("monaco-editor/languages/features/typescript/ts.worker.js", import.meta.url), { type: "module" });
      case "json":
        return new Worker(new URL("monaco-editor/languages/features/json/json.worker.js", import.meta.url), { type: "module" });
      case "css":
      case "scss":
      case "less":
        return new Worker(new URL("monaco-editor/languages/features/css/css.worker.js", import.meta.url), { type: "module" });
      case "html":
      case "handlebars":
      case "razor":
        return new Worker(new URL("monaco-editor/languages/features/html/html.worker.js", import.meta.url), { type: "module" });
      default:
        return new Worker(new URL("monaco-editor/editor/editor.worker.js", import.meta.url), { type: "module" });
    }
  },
};

loader.config({ monaco });

monaco.editor.defineTheme("cairn-dark", {
  base: "vs-dark",
  inherit: true,
  rules: [],
  colors: { "editor.background": "#15171c" },
});
