import { z } from "zod";
import { toolInputSchema } from "../input-schema.ts";
import { todoItemSchema, type TodoItem } from "../../schema/events.ts";
import type { Tool } from "../tool.ts";

export const todoWriteInputSchema = toolInputSchema("TodoWrite", () =>
  z.strictObject({
    todos: z.array(todoItemSchema).describe("The updated todo list"),
  }),
);
export type TodoWriteInput = z.infer<typeof todoWriteInputSchema>;
export type TodoWriteOutput = { oldTodos: TodoItem[]; newTodos: TodoItem[] };

export const todoWriteConfirmation =
  "Todos have been modified successfully. Ensure that you continue to use the todo list to track your progress. Please proceed with the current tasks if applicable";

const description = `Use this tool to create and manage a structured task list for your current session. This helps you track progress, organize complex tasks, and demonstrate thoroughness to the user.

When to use it:
- Complex multi-step tasks (3 or more distinct steps), or when the user gives several tasks at once
- When the user asks for a todo list
- After receiving new instructions: capture the requirements as todos
- When you start a task mark it in_progress BEFORE beginning work; mark it completed IMMEDIATELY after finishing it

When not to use it: a single, trivial task, or purely conversational requests.

Task states: pending (not started), in_progress (being worked on; exactly one at a time), completed (finished successfully).
Each task has two forms: content, the imperative ("Run tests"), and activeForm, the present continuous shown while it runs ("Running tests").
Only mark a task completed when it is fully done: not when tests fail, the work is partial, or you hit unresolved errors. Send the whole list each time.`;

export function createTodoWriteTool(): Tool<TodoWriteInput, TodoWriteOutput> {
  return {
    name: "TodoWrite",
    inputSchema: todoWriteInputSchema,
    description,
    maxResultChars: 2_000,
    isReadOnly: () => false,
    isConcurrencySafe: () => false,
    async checkPermissions() {
      return { behavior: "allow", reason: { type: "tool", reason: "Updating the todo list needs no permission" } };
    },
    async validateInput(input) {
      const inProgress = input.todos.filter((todo) => todo.status === "in_progress").length;
      if (inProgress <= 1) return { ok: true };
      return {
        ok: false,
        code: "several_in_progress",
        message: `${inProgress} todos are in_progress, but only one may be at a time. Keep the one you are working on in_progress and mark the others pending or completed.`,
      };
    },
    async call(input, context) {
      const oldTodos = [...context.getAppState().todos];
      // As Claude Code does: a list whose every item is done is cleared from state, but the result keeps it.
      const stored = input.todos.every((todo) => todo.status === "completed") ? [] : input.todos;
      context.setAppState((state) => ({ ...state, todos: stored }));
      return { output: { oldTodos, newTodos: input.todos } };
    },
    renderResult: () => todoWriteConfirmation,
  };
}

export const todoWriteTool = createTodoWriteTool();
