import { readFileSync } from "fs";
import * as path from "path";
import type { Stats } from "fs";

/** Where a store keeps its files, and how much of them it serves. */
export interface StoreOptions {
  root: string;
  maxBytes?: number;
  onStat?: (s: Stats) => void;
}

type Loaded<T> = {
  name: string;
  value: T;
};

enum Mode {
  Read = "read",
  Write = "write",
}

export class Store<T extends object> {
  private cache = new Map<string, Loaded<T>>();

  constructor(
    private readonly options: StoreOptions,
    private readonly mode: Mode = Mode.Read,
  ) {}

  load<K extends keyof T>(
    name: string,
    key?: K,
  ): Loaded<T> | undefined {
    const full: string = path.resolve(this.options.root, name);
    if (!full.startsWith(this.options.root + path.sep)) {
      throw new Error(`outside the store (${this.mode}): ${name}`);
    }
    const text = readFileSync(full, "utf8") as string;
    const value = JSON.parse(text) as T;
    const loaded: Loaded<T> = { name, value };
    this.cache.set(name, loaded);
    return loaded;
  }
}
