/** Says plainly that no real model is answering, and how to use one. */
export function DemoBanner() {
  return (
    <div className="demo-banner" role="status" data-testid="demo-banner">
      <strong>Offline demo model.</strong> Answers come from a scripted demo model running on this machine, not from Claude. To use a real model, stop the
      server and start it again with <code>ANTHROPIC_API_KEY</code> set (and optionally <code>ANTHROPIC_BASE_URL</code>), e.g.{" "}
      <code>ANTHROPIC_API_KEY=sk-ant-… cairn serve</code>.
    </div>
  );
}
