internal import CFprint

extension LibfprintReader {
    public func storedPrints() async throws -> [EnrolledPrint] {
        try requireStorage(.storageList, "list the prints stored on it")
        let device = handle.device
        let identity = info.identity
        return try await context.perform(timeout: nil) { _, cancellable in
            try Self.withOpenDevice(device.pointer, cancellable) { device in
                let list = try withGError { error in fp_device_list_prints_sync(device, cancellable, error) }
                guard let list else { return [] }
                defer { g_ptr_array_unref(list) }
                return try (0..<list.pointee.len).compactMap { index in
                    try PrintTemplate.enrolledPrint(OpaquePointer(fl_ptr_array_index(list, index)), reader: identity)
                }
            }
        }
    }

    public func deleteStoredPrint(_ print: EnrolledPrint) async throws {
        try requireStorage(.storageDelete, "delete a print stored on it")
        let device = handle.device
        let identity = info.identity
        try await context.perform(timeout: nil) { _, cancellable in
            let fpPrint = try PrintTemplate.load(print, for: device.pointer, reader: identity)
            defer { g_object_unref(UnsafeMutableRawPointer(fpPrint)) }
            try Self.withOpenDevice(device.pointer, cancellable) { device in
                try withGError { error in _ = fp_device_delete_print_sync(device, fpPrint, cancellable, error) }
            }
        }
    }

    public func clearStorage() async throws {
        try requireStorage(.storageClear, "clear its storage")
        let device = handle.device
        try await context.perform(timeout: nil) { _, cancellable in
            try Self.withOpenDevice(device.pointer, cancellable) { device in
                try withGError { error in _ = fp_device_clear_storage_sync(device, cancellable, error) }
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
