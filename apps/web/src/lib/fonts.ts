/**
 * The font family a CSS custom property holds (next/font sets `--font-geist-mono` on <html>). Canvas-measuring
 * widgets (Monaco, xterm) need the real family names: they cannot resolve `var(...)` themselves.
 */
export function cssFontFamily(variable: string, fallback: string): string {
  if (typeof document === "undefined") return fallback;
  const value = getComputedStyle(document.documentElement).getPropertyValue(variable).trim();
  return value ? `${value}, ${fallback}` : fallback;
}
