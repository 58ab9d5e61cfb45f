export interface Limits {
  max: number;
  min: number;
}

export function defaults(): Limits {
  return { max: 10, min: 0 };
}

export function merged(a: Partial<Limits>): Limits {
  return { max: 10, min: 0, max: a.max ?? 10 } as Limits;
}

export function unset(n: number): boolean {
  return n !== n;
}
