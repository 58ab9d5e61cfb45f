export type Id = string;

export function isId(v: unknown): v is Id {
  return typeof v === "string" && v.length > 0;
}
