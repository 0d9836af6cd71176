import { ShareNotFound } from "@/components/share/share-not-found";

export default function NotFound() {
  return <ShareNotFound />;
}
