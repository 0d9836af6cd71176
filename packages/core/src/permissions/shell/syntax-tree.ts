import type { Tree } from "web-tree-sitter";

/**
 * A plain copy of tree-sitter's tree, read once with a cursor. Walking web-tree-sitter's `Node`
 * wrappers allocates several objects per access; one pass with a cursor keeps each decision's
 * garbage (and so GC pauses) small.
 */
export type SyntaxNode = {
  type: string;
  isNamed: boolean;
  isError: boolean;
  isMissing: boolean;
  /** This node or a descendant is an ERROR or MISSING node. */
  hasError: boolean;
  field: string | null;
  text: string;
  children: SyntaxNode[];
};

export function readSyntaxTree(tree: Tree, source: string): SyntaxNode {
  const cursor = tree.walk();
  try {
    const read = (): SyntaxNode => {
      const type = cursor.nodeType;
      const isMissing = cursor.nodeIsMissing;
      const node: SyntaxNode = {
        type,
        isNamed: cursor.nodeIsNamed,
        isError: type === "ERROR",
        isMissing,
        hasError: type === "ERROR" || isMissing,
        field: cursor.currentFieldName,
        text: source.slice(cursor.startIndex, cursor.endIndex),
        children: [],
      };
      if (cursor.gotoFirstChild()) {
        do {
          const child = read();
          node.hasError ||= child.hasError;
          node.children.push(child);
        } while (cursor.gotoNextSibling());
        cursor.gotoParent();
      }
      return node;
    };
    return read();
  } finally {
    cursor.delete();
  }
}

export function namedChildren(node: SyntaxNode): SyntaxNode[] {
  return node.children.filter((child) => child.isNamed);
}

export function childForField(node: SyntaxNode, field: string): SyntaxNode | undefined {
  return node.children.find((child) => child.field === field);
}
