/** Exact-scan kernel (WebAssembly SIMD with a JavaScript fallback) for flat and ivf. */
export { createScanKernel, type ScanKernel, type ScanKernelOptions, simdSupported } from './scan-kernel';
export { type ScanResult, TopN } from './top-n';
