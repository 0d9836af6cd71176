import type { Metadata } from "next";
import { notFound } from "next/navigation";
import { TimelinePage } from "@/timeline/timeline-page";

export const metadata: Metadata = { title: "Timeline · Cairn" };

const SESSION_ID = /^[A-Za-z0-9_-]{1,128}$/;

export default async function Page({ params }: { params: Promise<{ id: string }> }) {
  const { id } = await params;
  if (!SESSION_ID.test(id)) notFound();
  return <TimelinePage sessionId={id} />;
}
