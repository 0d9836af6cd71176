import { IdeShell } from "@/shell/ide-shell";

export default function Page() {
  return <IdeShell />;
}
