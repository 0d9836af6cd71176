import type { Metadata } from "next";
import { notFound } from "next/navigation";
import { earlyViewScript } from "@/timeline/early-view";
import { TimelinePage } from "@/timeline/timeline-page";

export const metadata: Metadata = { title: "Timeline · Cairn" };

const SESSION_ID = /^[A-Za-z0-9_-]{1,128}$/;

export default async function Page({ params }: { params: Promise<{ id: string }> }) {
  const { id } = await params;
  if (!SESSION_ID.test(id)) notFound();
  return (
    <>
      {/* Sends the first request while the page's scripts load; the page takes its answer (early-view.ts). */}
      {/* biome-ignore lint/security/noDangerouslySetInnerHtml: a fixed script around a checked id, made by earlyViewScript */}
      <script dangerouslySetInnerHTML={{ __html: earlyViewScript(id) }} />
      <TimelinePage sessionId={id} />
    </>
  );
}
