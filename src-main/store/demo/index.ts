/** Demo data: a full generated Hermes home, and a bulk generator for benchmarks. */
export { writeDemoHome, type DemoHomeOptions, type DemoHome } from './home'
export { generateBulk, type BulkOptions } from './bulk'
