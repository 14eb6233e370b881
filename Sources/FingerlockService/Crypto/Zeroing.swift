import FoundationEssentials

#if canImport(Glibc)
    import Glibc
#endif

/// Overwrites buffers that held key material or messages carrying it, before they are dropped.
enum Zeroing {
    static func zero(_ bytes: inout [UInt8]) {
        bytes.withUnsafeMutableBytes { raw in
            guard let base = raw.baseAddress else { return }
            // explicit_bzero: glibc's memset the optimiser may not remove.
            explicit_bzero(base, raw.count)
        }
    }

    static func zero(_ data: inout Data) {
        data.withUnsafeMutableBytes { raw in
            guard let base = raw.baseAddress else { return }
            explicit_bzero(base, raw.count)
        }
    }
}
