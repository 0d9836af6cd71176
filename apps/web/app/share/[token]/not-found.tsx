import { ShareNotFound } from "@/share/share-not-found";

export default function NotFound() {
  return <ShareNotFound />;
}
