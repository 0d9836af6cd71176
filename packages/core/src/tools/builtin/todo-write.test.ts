import { describe, expect, it } from "vitest";
import type { TodoItem } from "../../schema/events.ts";
import { createMemoryWorkspace } from "../../testing/memory-workspace.ts";
import { createTodoWriteTool, todoWriteConfirmation } from "./todo-write.ts";
import { expectResult, runTool, toolContext } from "./tool-test-support.ts";

const todoWrite = createTodoWriteTool();
const todo = (content: string, status: TodoItem["status"]): TodoItem => ({ content, status, activeForm: `${content}ing` });

describe("TodoWrite", () => {
  it("stores the list in app state and answers with Claude Code's confirmation", async () => {
    const context = toolContext(createMemoryWorkspace());
    const seen: unknown[] = [];
    context.store.subscribe((state) => seen.push(state.todos));
    const todos = [todo("Write tests", "in_progress"), todo("Fix bug", "pending")];
    const run = expectResult(await runTool(todoWrite, { todos }, context));
    expect(run.content).toBe(todoWriteConfirmation);
    expect(run.result.output).toEqual({ oldTodos: [], newTodos: todos });
    expect(context.getAppState().todos).toEqual(todos);
    expect(seen).toEqual([todos]);
  });

  it("reports the previous list as oldTodos", async () => {
    const context = toolContext(createMemoryWorkspace());
    const first = [todo("A", "in_progress"), todo("B", "pending")];
    await runTool(todoWrite, { todos: first }, context);
    const second = [todo("A", "completed"), todo("B", "in_progress")];
    const run = expectResult(await runTool(todoWrite, { todos: second }, context));
    expect(run.result.output).toEqual({ oldTodos: first, newTodos: second });
  });

  it("clears the stored list once every item is completed, as Claude Code does", async () => {
    const context = toolContext(createMemoryWorkspace());
    await runTool(todoWrite, { todos: [todo("A", "in_progress")] }, context);
    const done = [todo("A", "completed")];
    const run = expectResult(await runTool(todoWrite, { todos: done }, context));
    expect(run.result.output).toMatchObject({ newTodos: done });
    expect(context.getAppState().todos).toEqual([]);
  });

  it("refuses more than one in_progress item, saying how to fix it", async () => {
    const context = toolContext(createMemoryWorkspace());
    const run = await runTool(todoWrite, { todos: [todo("A", "in_progress"), todo("B", "in_progress")] }, context);
    expect(run).toMatchObject({
      stage: "validation",
      code: "several_in_progress",
      message: "2 todos are in_progress, but only one may be at a time. Keep the one you are working on in_progress and mark the others pending or completed.",
    });
    expect(context.getAppState().todos).toEqual([]);
  });

  it("rejects items missing activeForm or with an unknown status", async () => {
    const context = toolContext(createMemoryWorkspace());
    expect((await runTool(todoWrite, { todos: [{ content: "A", status: "pending" }] }, context)).stage).toBe("input");
    expect((await runTool(todoWrite, { todos: [{ content: "A", status: "blocked", activeForm: "A" }] }, context)).stage).toBe("input");
  });

  it("needs no permission", async () => {
    const context = toolContext(createMemoryWorkspace());
    expect(await todoWrite.checkPermissions?.({ todos: [] }, context)).toMatchObject({ behavior: "allow", reason: { type: "tool" } });
  });
});
