internal import CGio

/// One reference to a GVariant (a D-Bus value), released in `deinit`. Not shared between threads.
public final class BusVariant {
    private let gio: FLGioFunctions
    private let raw: OpaquePointer

    /// Takes over a full (not floating) reference, as `g_dbus_connection_call_sync` and
    /// `g_variant_get_child_value` return.
    init(takingOwnershipOf raw: OpaquePointer, _ gio: FLGioFunctions) {
        self.raw = raw
        self.gio = gio
    }

    deinit { gio.g_variant_unref(raw) }

    public func `is`(_ type: String) -> Bool {
        // The type string must outlive the call: never a pointer to a temporary C string.
        type.withCString { gio.g_variant_is_of_type(raw, fl_variant_type($0)) != 0 }
    }

    public var count: Int { Int(gio.g_variant_n_children(raw)) }

    /// Child `index` of a container (a tuple, a struct); nil when there is none.
    public func child(_ index: Int) -> BusVariant? {
        guard index < count, let child = gio.g_variant_get_child_value(raw, gsize(index)) else { return nil }
        return BusVariant(takingOwnershipOf: child, gio)
    }

    /// The value inside a variant ("v"); nil for anything else.
    public var unboxed: BusVariant? {
        guard `is`("v"), let inner = gio.g_variant_get_variant(raw) else { return nil }
        return BusVariant(takingOwnershipOf: inner, gio)
    }

    /// The strings of an array of strings or object paths (`as`, `ao`); nil for anything else.
    public var strings: [String]? {
        guard `is`("as") || `is`("ao") else { return nil }
        return (0..<count).compactMap { child($0)?.string }
    }

    public var bool: Bool? { `is`("b") ? gio.g_variant_get_boolean(raw) != 0 : nil }
    public var uint32: UInt32? { `is`("u") ? gio.g_variant_get_uint32(raw) : nil }
    public var int32: Int32? { `is`("i") ? gio.g_variant_get_int32(raw) : nil }
    /// A string or an object path.
    public var string: String? {
        guard `is`("s") || `is`("o") else { return nil }
        return gio.g_variant_get_string(raw, nil).map { String(cString: $0) }
    }
}
