/**
 * The window of a list of equal-height rows: which rows a scroll position shows and where each is drawn.
 * Everything is arithmetic on the row height, so the work follows the rows in view, not the list's length
 * (a measuring virtualizer keeps one record per row: a million of them on every change of the count).
 * A list taller than `maxScrollPx` (browsers cap an element's height near 33 million px; a million rows of
 * 40 px exceed it) scrolls a spacer of that height and maps its scroll range onto the rows.
 */

/** Well below every browser's largest element height. */
export const MAX_SCROLL_PX = 8_000_000;

export type RowsGeometry = { count: number; rowHeight: number; viewportHeight: number; maxScrollPx?: number };

export type RowsWindow = {
  /** The scrolled spacer's height. */
  spacerHeight: number;
  /** The rows to draw, [first, end). */
  first: number;
  end: number;
  /** Where row `index` is drawn, px from the spacer's top. */
  top: (index: number) => number;
};

/** How far the list is scrolled, in rows' own px, when the spacer is scrolled by `scrollTop`. */
function contentOffset(geometry: RowsGeometry, scrollTop: number): number {
  const { contentHeight, spacerHeight } = heights(geometry);
  if (contentHeight === spacerHeight) return scrollTop;
  const range = spacerHeight - geometry.viewportHeight;
  return range <= 0 ? 0 : (Math.min(Math.max(scrollTop, 0), range) / range) * (contentHeight - geometry.viewportHeight);
}

function heights({ count, rowHeight, maxScrollPx = MAX_SCROLL_PX }: RowsGeometry): { contentHeight: number; spacerHeight: number } {
  const contentHeight = count * rowHeight;
  return { contentHeight, spacerHeight: Math.min(contentHeight, maxScrollPx) };
}

/** The rows in view at `scrollTop`, with `overscan` more on each side. */
export function rowsWindow(geometry: RowsGeometry, scrollTop: number, overscan: number): RowsWindow {
  const { count, rowHeight, viewportHeight } = geometry;
  const { spacerHeight } = heights(geometry);
  const offset = contentOffset(geometry, scrollTop);
  const first = Math.max(0, Math.floor(offset / rowHeight) - overscan);
  const end = Math.min(count, Math.ceil((offset + viewportHeight) / rowHeight) + overscan);
  // Rows sit where the scrolled content puts them: their content position, shifted by how far the spacer's
  // scroll and the content's offset differ (zero unless the list is taller than the spacer).
  const shift = Math.min(Math.max(scrollTop, 0), Math.max(0, spacerHeight - viewportHeight)) - offset;
  return { spacerHeight, first, end, top: (index) => index * rowHeight + shift };
}

/**
 * The scroll position that brings row `index` into view with the least movement (the same position when it
 * is in view already).
 */
export function scrollToRow(geometry: RowsGeometry, scrollTop: number, index: number): number {
  const { rowHeight, viewportHeight } = geometry;
  const { contentHeight, spacerHeight } = heights(geometry);
  const offset = contentOffset(geometry, scrollTop);
  const rowTop = index * rowHeight;
  let target = offset;
  if (rowTop < offset) target = rowTop;
  else if (rowTop + rowHeight > offset + viewportHeight) target = rowTop + rowHeight - viewportHeight;
  if (target === offset) return scrollTop;
  if (contentHeight === spacerHeight) return target;
  const range = spacerHeight - viewportHeight;
  const contentRange = contentHeight - viewportHeight;
  return contentRange <= 0 ? 0 : (target / contentRange) * range;
}
