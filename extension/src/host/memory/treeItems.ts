import * as vscode from 'vscode';
import { plain } from '../../shared/text';

/** A node of the Headroom view: an item, and its children when it has any. */
export type Node = vscode.TreeItem & { children?: () => Promise<Node[]> | Node[] };

// Labels quote frame paths, function names, module and folder names: plain text, one line each.
export function leaf(label: string, description?: string, command?: vscode.Command, tooltip?: string): Node {
  const n: Node = new vscode.TreeItem(plain(label), vscode.TreeItemCollapsibleState.None);
  if (description) n.description = plain(description);
  if (command) n.command = command;
  if (tooltip) n.tooltip = plain(tooltip);
  return n;
}

export function group(label: string, children: () => Promise<Node[]> | Node[], expanded = false, description?: string): Node {
  const n: Node = new vscode.TreeItem(
    plain(label),
    expanded ? vscode.TreeItemCollapsibleState.Expanded : vscode.TreeItemCollapsibleState.Collapsed,
  );
  n.children = children;
  if (description) n.description = plain(description);
  return n;
}
