internal import CFprint

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

extension LibfprintReader {
    public func storedPrints(known: [EnrolledPrint]) async throws -> [StoredPrint] {
        try requireStorage(.storageList, "list the prints stored on it")
        let device = handle.device
        let identity = info.identity
        return try await context.perform(driver: info.driver, timeout: nil) { _, cancellable in
            // Prints of another reader cannot be this reader's stored ones; an unreadable one is simply not found.
            let loaded = known.compactMap { print in
                (try? PrintTemplate.load(print, for: device.pointer, reader: identity)).map { (print, $0) }
            }
            defer { for (_, pointer) in loaded { libfprint.g_object_unref(UnsafeMutableRawPointer(pointer)) } }
            return try Self.withOpenDevice(device.pointer, cancellable) { device in
                let list = try withGError { error in libfprint.fp_device_list_prints_sync(device, cancellable, error) }
                guard let list else { return [] }
                defer { libfprint.g_ptr_array_unref(list) }
                return try (0..<list.pointee.len).map { index in
                    let stored = OpaquePointer(fl_ptr_array_index(list, index))!
                    var print = try PrintTemplate.storedPrint(stored, reader: identity)
                    print.known = loaded.first { libfprint.fp_print_equal(stored, $0.1) != 0 }?.0
                    return print
                }
            }
        }
    }

    public func deleteStoredPrint(_ print: StoredPrint) async throws {
        try requireStorage(.storageDelete, "delete a print stored on it")
        let device = handle.device
        let identity = info.identity
        try await context.perform(driver: info.driver, timeout: nil) { _, cancellable in
            let fpPrint = try PrintTemplate.load(
                print.template, describedAs: print.finger.map { "The \($0) print" } ?? "The stored print",
                reader: print.reader, for: device.pointer, expected: identity)
            defer { libfprint.g_object_unref(UnsafeMutableRawPointer(fpPrint)) }
            try Self.withOpenDevice(device.pointer, cancellable) { device in
                try withGError { error in _ = libfprint.fp_device_delete_print_sync(device, fpPrint, cancellable, error) }
            }
        }
    }

    public func clearStorage() async throws {
        try requireStorage(.storageClear, "clear its storage")
        let device = handle.device
        try await context.perform(driver: info.driver, timeout: nil) { _, cancellable in
            try Self.withOpenDevice(device.pointer, cancellable) { device in
                try withGError { error in _ = libfprint.fp_device_clear_storage_sync(device, cancellable, error) }
            }
        }
    }

    private func requireStorage(_ feature: ReaderFeatures, _ action: String) throws {
        guard info.features.contains(feature) else {
            throw FingerprintError(
                .notSupported,
                "The \(info.name) reader (\(info.identity)) keeps no prints of its own, so it cannot \(action).")
        }
    }
}
