"use client";

import { useVirtualizer } from "@tanstack/react-virtual";
import { useLayoutEffect, useRef } from "react";
import type { ChatItem, ToolCallView } from "./chat-types";
import { MessageView } from "./message-view";

type Props = {
  items: ChatItem[];
  toolCalls: Record<string, ToolCallView>;
  /** Absent in read-only views (a shared session): tool cards then offer no "Open" link. */
  onOpenFile?: (path: string) => void;
  onFork?: (messageUuid: string) => void;
  onRewind?: (messageUuid: string) => void;
  /** Adds a rule for this session (absent in read-only views). */
  onAllowRule?: (rule: string) => Promise<void>;
  empty: React.ReactNode;
};

/** Distance from the bottom (px) within which the list keeps following new output. */
const STICK_THRESHOLD = 48;

/** The conversation, virtualised (long sessions hold thousands of entries), following the stream while at the bottom. */
export function MessageList({ items, toolCalls, onOpenFile, onFork, onRewind, onAllowRule, empty }: Props) {
  const scrollRef = useRef<HTMLDivElement>(null);
  const atBottom = useRef(true);
  const virtualizer = useVirtualizer({
    count: items.length,
    getScrollElement: () => scrollRef.current,
    estimateSize: () => 96,
    overscan: 6,
    getItemKey: (index) => items[index]?.id ?? index,
    useFlushSync: false,
  });
  const totalSize = virtualizer.getTotalSize();

  // biome-ignore lint/correctness/useExhaustiveDependencies: re-run whenever the content grows, to stay pinned to the bottom.
  useLayoutEffect(() => {
    const element = scrollRef.current;
    if (element && atBottom.current) element.scrollTop = element.scrollHeight;
  }, [totalSize, items]);

  return (
    <div
      ref={scrollRef}
      className="message-list"
      data-testid="message-list"
      role="log"
      aria-live="polite"
      onScroll={(event) => {
        const element = event.currentTarget;
        atBottom.current = element.scrollHeight - element.scrollTop - element.clientHeight < STICK_THRESHOLD;
      }}
    >
      {items.length === 0 ? (
        <div className="message-list-empty">{empty}</div>
      ) : (
        <div style={{ height: totalSize, position: "relative", width: "100%" }}>
          {virtualizer.getVirtualItems().map((row) => {
            const item = items[row.index];
            if (!item) return null;
            return (
              <div
                key={row.key}
                data-index={row.index}
                ref={virtualizer.measureElement}
                className="message-row"
                style={{ position: "absolute", top: 0, left: 0, width: "100%", transform: `translateY(${row.start}px)` }}
              >
                <MessageView
                  item={item}
                  toolCalls={toolCalls}
                  {...(onOpenFile ? { onOpenFile } : {})}
                  {...(onFork ? { onFork } : {})}
                  {...(onRewind ? { onRewind } : {})}
                  {...(onAllowRule ? { onAllowRule } : {})}
                />
              </div>
            );
          })}
        </div>
      )}
    </div>
  );
}
