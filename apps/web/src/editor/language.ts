/** Monaco language ids by file extension (lower case, without the dot) and by whole file name. */
const byExtension: Record<string, string> = {
  ts: "typescript", tsx: "typescript", mts: "typescript", cts: "typescript",
  js: "javascript", jsx: "javascript", mjs: "javascript", cjs: "javascript",
  json: "json", jsonc: "json", json5: "json",
  css: "css", scss: "scss", less: "less",
  html: "html", htm: "html", xml: "xml", svg: "xml",
  md: "markdown", markdown: "markdown", mdx: "markdown",
  py: "python", rb: "ruby", go: "go", rs: "rust", java: "java", kt: "kotlin", kts: "kotlin",
  c: "c", h: "c", cc: "cpp", cpp: "cpp", cxx: "cpp", hpp: "cpp", cs: "csharp", swift: "swift",
  php: "php", lua: "lua", r: "r", sql: "sql", scala: "scala", dart: "dart",
  sh: "shell", bash: "shell", zsh: "shell",
  yml: "yaml", yaml: "yaml", toml: "ini", ini: "ini", cfg: "ini", conf: "ini",
  graphql: "graphql", gql: "graphql", proto: "proto", dockerfile: "dockerfile",
  ps1: "powershell", bat: "bat", tf: "hcl", hcl: "hcl", vue: "html", svelte: "html",
};

const byName: Record<string, string> = {
  dockerfile: "dockerfile",
  makefile: "makefile",
  ".bashrc": "shell",
  ".zshrc": "shell",
  ".gitignore": "plaintext",
  ".env": "ini",
};

export function languageForPath(path: string): string {
  const name = path.slice(path.lastIndexOf("/") + 1).toLowerCase();
  const named = byName[name];
  if (named) return named;
  const dot = name.lastIndexOf(".");
  if (dot <= 0) return "plaintext";
  return byExtension[name.slice(dot + 1)] ?? "plaintext";
}
