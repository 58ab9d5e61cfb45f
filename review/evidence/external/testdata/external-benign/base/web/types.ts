export type Id = string;
