// Slash commands in the panel's prompt box: what they are, completion, and parsing.

export type SlashCommand = { name: string; args: string; detail: string };

export const COMMANDS: SlashCommand[] = [
  { name: 'new', args: '', detail: 'start a new session' },
  { name: 'compact', args: '', detail: 'summarise the history now' },
  { name: 'stop', args: '', detail: 'stop the running agent (Escape)' },
  { name: 'model', args: ' [name]', detail: 'show or choose the model' },
  { name: 'fix', args: ' [cell]', detail: "fix the active cell's error (or In [cell], the latest) with the agent" },
  { name: 'verify', args: ' [--with-agent]', detail: 'run the saved notebook in a fresh kernel and compare its outputs' },
  { name: 'settings', args: '', detail: 'the model, its key and where each setting comes from' },
  { name: 'help', args: '', detail: 'what the panel can do' }
];

/** One line per thing the panel does: shown as a block that keeps its lines. */
export const HELP_TEXT = [
  'Type a question and press Enter (Shift+Enter for a new line).',
  "@ mentions a variable (@df), a cell (@cell:3 is In [3]), a file (@file:data.csv) or an MCP server's resource (@server:uri).",
  '“+ Cell” attaches the active cell, or the text selected in it.',
  '',
  ...COMMANDS.map(c => `/${c.name}${c.args} — ${c.detail}`),
  "/server:name — run an MCP server's prompt",
  '',
  'Escape stops the agent; Alt+I puts the cursor here from anywhere.'
].join('\n');

/** The command being typed (`/mo` → `mo`, `/docs:su` → `docs:su`), or null when the box holds something else. */
export function commandQuery(text: string): string | null {
  const match = text.match(/^\/([\w.:-]*)$/);
  return match ? match[1] : null;
}

/** `/model gp` → the model prefix `gp`, else null. */
export function modelQuery(text: string): string | null {
  const match = text.match(/^\/model\s+(\S*)$/);
  return match ? match[1] : null;
}

/** The panel's own commands, then the MCP servers' prompts (`/server:name arg=…`, from the kernel). */
export function completeCommands(query: string, prompts: SlashCommand[] = []): { label: string; detail: string }[] {
  const shown = [...COMMANDS, ...prompts].filter(c => c.name.startsWith(query) || c.name.split(':')[1]?.startsWith(query));
  return shown.map(c => ({ label: '/' + c.name + c.args, detail: c.detail }));
}

/** `/model openai/gpt-4o` → {name: 'model', arg: 'openai/gpt-4o'}; null when not a command. */
export function parseCommand(text: string): { name: string; arg: string } | null {
  const match = text.trim().match(/^\/([\w.:-]+)(?:\s+([\s\S]*))?$/);
  return match ? { name: match[1], arg: (match[2] ?? '').trim() } : null;
}
