// A bounded map that forgets the least recently used key (the golang-lru caches client-go's
// correlator keeps, 4096 entries each): a Map, whose insertion order is the recency order.
export class LruCache<V> {
  private readonly map = new Map<string, V>();

  constructor(private readonly max: number) {}

  get(key: string): V | undefined {
    const v = this.map.get(key);
    if (v !== undefined) {
      this.map.delete(key);
      this.map.set(key, v);
    }
    return v;
  }

  set(key: string, value: V): void {
    this.map.delete(key);
    this.map.set(key, value);
    if (this.map.size > this.max) this.map.delete(this.map.keys().next().value!);
  }

  /** Forgets every entry `drop` picks. */
  deleteWhere(drop: (key: string, value: V) => boolean): void {
    for (const [k, v] of this.map) if (drop(k, v)) this.map.delete(k);
  }

  get size(): number {
    return this.map.size;
  }
}
