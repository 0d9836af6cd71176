import type { Metadata } from "next";
import { SharesPage } from "@/share/shares-page";

export const metadata: Metadata = { title: "My shares · Cairn" };

export default function Page() {
  return <SharesPage />;
}
