import type { NextConfig } from "next";

const nextConfig: NextConfig = {
  // @cairn/core ships TypeScript source; this also keeps the `--webpack` fallback working.
  transpilePackages: ["@cairn/core"],
  poweredByHeader: false,
  reactStrictMode: true,
};

export default nextConfig;
