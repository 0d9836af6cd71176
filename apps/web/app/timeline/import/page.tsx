import type { Metadata } from "next";
import { TimelineImportPage } from "@/timeline/timeline-import-page";

export const metadata: Metadata = { title: "Open a Claude Code transcript · Cairn" };

export default function Page() {
  return <TimelineImportPage />;
}
