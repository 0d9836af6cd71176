import { IdeShell } from "@/components/ide-shell";

export default function Page() {
  return <IdeShell />;
}
