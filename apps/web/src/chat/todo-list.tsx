import type { TodoItem } from "@cairn/core/schema";

const marks: Record<TodoItem["status"], string> = { pending: "○", in_progress: "◐", completed: "●" };

/** The agent's todo list (TodoWrite), as it last reported it. */
export function TodoList({ todos }: { todos: readonly TodoItem[] }) {
  if (todos.length === 0) return null;
  const done = todos.filter((todo) => todo.status === "completed").length;
  return (
    <details className="todo-list" data-testid="todo-list" open>
      <summary>
        Todos {done}/{todos.length}
      </summary>
      <ul>
        {todos.map((todo, index) => (
          <li key={index} className={`todo ${todo.status}`} data-status={todo.status}>
            <span aria-hidden>{marks[todo.status]}</span> {todo.status === "in_progress" ? todo.activeForm : todo.content}
          </li>
        ))}
      </ul>
    </details>
  );
}
