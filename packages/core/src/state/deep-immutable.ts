/** Makes a type read-only all the way down; functions are left callable. */
export type DeepImmutable<T> = T extends (...args: never[]) => unknown
  ? T
  : T extends ReadonlyArray<infer Item>
    ? ReadonlyArray<DeepImmutable<Item>>
    : T extends ReadonlyMap<infer Key, infer Value>
      ? ReadonlyMap<DeepImmutable<Key>, DeepImmutable<Value>>
      : T extends ReadonlySet<infer Item>
        ? ReadonlySet<DeepImmutable<Item>>
        : T extends object
          ? { readonly [K in keyof T]: DeepImmutable<T[K]> }
          : T;
