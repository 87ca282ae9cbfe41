// Prints docs/agent-settings.md as the setting rows make it; with --write, writes it.
//   bun scripts/agent-settings-doc.ts --write
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { SETTING_GROUPS } from "../src/agent/agent-config";
import { settingsMarkdown } from "../src/agent/settings-doc";

const text = settingsMarkdown(SETTING_GROUPS);
if (process.argv.includes("--write")) writeFileSync(join(import.meta.dir, "..", "docs", "agent-settings.md"), text);
else process.stdout.write(text);
