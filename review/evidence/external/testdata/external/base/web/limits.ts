export interface Limits {
  max: number;
}

export function defaults(): Limits {
  return { max: 10 };
}

export function unset(n: number): boolean {
  return n !== n;
}
