// The last good state of a polling source — the static pod path and the manifest URL — kept across
// restarts of the agent, past the kubelet. The kubelet keeps nothing: a manifest that is invalid (or
// half written, or a URL that is down) when it starts contributes no pod, the source still counts as
// seen, and the pod that ran from it is killed as an orphan. Here each source records, whenever it
// changes, what every manifest last gave that loaded (its content hash and its pods, UIDs included),
// and reads it back at start, so a manifest or URL that does not load then serves its last good pods:
// same UIDs, so the running containers are adopted and none is lost.
//
// "Seen": a source serving its last good state counts as seen (SourceReport.complete), because the
// state is written before any set is handed on, so every pod the source ever started is in it — what
// it serves covers everything of its own that runs, and orphan cleanup of the other sources is not
// held up by input that may stay broken for days. Where the state cannot tell (the file exists but
// does not read back), the sources stay conservative: see FileSource and HttpSource.
//
// One JSON file per source, <dir>/<source>.json, mode 0600 in a 0700 directory (it holds pod specs,
// env values included), written through a temporary file and a rename so a crash leaves the old state
// or the new one. The file names the location (path or URL) it belongs to: after the flag changed,
// the state of the old location is not served for the new one.
import { chmodSync, mkdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import type { Pod } from "kubernetes-types/core/v1";
import { errorCode, errorMessage, writeFileAtomic } from "../util";

/** What one manifest (a file, or the URL's body) last gave that loaded. */
export interface LastGood {
  /** sha256 of the bytes that loaded: the same bytes again are known good without waiting. */
  hash: string;
  pods: Pod[];
}

/** The state a source reads back at start. */
export type RestoredState =
  /** No state dir, no file yet (a new node), or a file for another location: nothing was good before. */
  | { status: "none"; entries: Map<string, LastGood>; note?: string }
  | { status: "ok"; entries: Map<string, LastGood> }
  /** The file exists but does not read back: what was good before is unknown. */
  | { status: "unreadable"; entries: Map<string, LastGood>; problem: string };

interface StateFile {
  apiVersion: typeof API_VERSION;
  kind: "SourceState";
  source: string;
  location: string;
  /** Manifest (file path, or the URL) → what it last gave that loaded. */
  entries: Record<string, LastGood>;
}

const API_VERSION = "nodeagent.io/v1";

export interface SourceStateOptions {
  /** Where the state files live (the agent passes <root-dir>/sources); none: kept in memory only. */
  dir?: string;
  /** The file's name: "file" or "http". */
  source: string;
  /** The --pod-manifest-path or --manifest-url this state belongs to. */
  location: string;
}

export class SourceState {
  /** The state file, when there is a state dir. */
  readonly file: string | undefined;
  private readonly dir: string | undefined;
  private readonly source: string;
  private readonly location: string;
  /** What was last written (or read back): an unchanged state is not written again. */
  private lastText: string | undefined;

  constructor(opts: SourceStateOptions) {
    this.dir = opts.dir;
    this.file = opts.dir === undefined ? undefined : join(opts.dir, `${opts.source}.json`);
    this.source = opts.source;
    this.location = opts.location;
  }

  /** Reads the state back; never throws. */
  restore(): RestoredState {
    const entries = new Map<string, LastGood>();
    if (!this.file) return { status: "none", entries };
    let text: string;
    try {
      text = readFileSync(this.file, "utf8");
    } catch (e) {
      // No file, or no directory for it (a path component is a file): nothing was ever kept there.
      if (errorCode(e) === "ENOENT" || errorCode(e) === "ENOTDIR") return { status: "none", entries };
      return { status: "unreadable", entries, problem: `${this.file}: cannot read the last good state: ${errorMessage(e)}` };
    }
    let doc: unknown;
    try {
      doc = JSON.parse(text);
    } catch (e) {
      return { status: "unreadable", entries, problem: `${this.file}: the last good state is not valid JSON (${errorMessage(e)})` };
    }
    const why = checkStateFile(doc);
    if (why) return { status: "unreadable", entries, problem: `${this.file}: the last good state is not usable: ${why}` };
    const state = doc as StateFile;
    if (state.location !== this.location || state.source !== this.source) {
      return { status: "none", entries, note: `${this.file} is the state of ${state.source} ${state.location}, not of ${this.location}: not used` };
    }
    for (const [k, v] of Object.entries(state.entries)) entries.set(k, { hash: v.hash, pods: v.pods });
    this.lastText = text;
    return { status: "ok", entries };
  }

  /**
   * Writes the state when it differs from what is on disk. Returns why it could not be written (the
   * source reports it; the set is still handed on), or undefined.
   */
  save(entries: ReadonlyMap<string, LastGood>): string | undefined {
    if (!this.file || !this.dir) return undefined;
    const sorted = [...entries.keys()].sort();
    const state: StateFile = {
      apiVersion: API_VERSION,
      kind: "SourceState",
      source: this.source,
      location: this.location,
      entries: Object.fromEntries(sorted.map((k) => [k, entries.get(k)!])),
    };
    const text = JSON.stringify(state);
    if (text === this.lastText) return undefined;
    try {
      mkdirSync(this.dir, { recursive: true, mode: 0o700 });
      chmodSync(this.dir, 0o700);
      // 0600 (writeFileAtomic's mode): the pod specs in here, env values included, are root's alone.
      writeFileAtomic(this.file, text);
    } catch (e) {
      return `${this.file}: cannot keep the last good state: ${errorMessage(e)}`;
    }
    this.lastText = text;
    return undefined;
  }
}

/** Why a parsed state file cannot be used, or undefined when it can. */
function checkStateFile(doc: unknown): string | undefined {
  if (!isRecord(doc)) return "not an object";
  if (doc.apiVersion !== API_VERSION || doc.kind !== "SourceState")
    return `apiVersion/kind ${String(doc.apiVersion)}/${String(doc.kind)}, want ${API_VERSION}/SourceState`;
  if (typeof doc.source !== "string" || typeof doc.location !== "string") return "source and location must be strings";
  if (!isRecord(doc.entries)) return "entries must be an object";
  for (const [k, v] of Object.entries(doc.entries)) {
    if (!isRecord(v) || typeof v.hash !== "string" || !Array.isArray(v.pods)) return `entry ${JSON.stringify(k)} needs a hash and a pods list`;
    for (const p of v.pods) {
      if (!isRecord(p) || !isRecord(p.metadata) || typeof p.metadata.uid !== "string" || typeof p.metadata.name !== "string") {
        return `entry ${JSON.stringify(k)} has a pod without metadata.name and metadata.uid`;
      }
    }
  }
  return undefined;
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}
