import CFprint
import FingerlockTestSupport
import Testing

@testable import Fingerprint

#if canImport(Glibc)
    import Glibc
#endif

/// Copying a `GError` reads only what GLib guarantees: an error GLib did not hand out (an unregistered
/// domain, or a code its domain does not define) is neither read past its two integers nor freed.
@Suite(.timed) struct GLibErrorConsumeTests {
    @Test func aGenuineErrorIsCopiedAndFreed() {
        let error = libfprint.g_error_new_literal(libfprint.fp_device_error_quark(), 8, "On device storage space is full.")!
        let copy = GLibError.consume(error)
        #expect(copy == GLibError(domain: .device, code: 8, message: "On device storage space is full."))
    }

    @Test func aForeignDomainIsKeptByName() {
        let error = libfprint.g_error_new_literal(libfprint.g_quark_from_string("fl-test-error-quark"), 3, "text")!
        #expect(GLibError.consume(error) == GLibError(domain: .other("fl-test-error-quark"), code: 3, message: "text"))
    }

    /// The message pointer of these errors points at an unmapped page: reading it would crash the test,
    /// and freeing the struct (malloc'd here, not by GLib) would abort it.
    @Test(arguments: [
        (GQuark(0x7fff_fff0), Int32(32605)),  // a quark GLib never registered
        (GQuark(0), Int32(1)),  // no domain at all
    ])
    func anUnregisteredDomainIsNotTrusted(domain: GQuark, code: Int32) {
        withForgedError(domain: domain, code: code) { error in
            #expect(GLibError.consume(error) == GLibError(domain: .invalid, code: Int(code), message: ""))
        }
    }

    @Test func aCodeItsDomainDoesNotDefineIsNotTrusted() {
        withForgedError(domain: libfprint.fp_device_error_quark(), code: 32605) { error in
            #expect(GLibError.consume(error) == GLibError(domain: .invalid, code: 32605, message: ""))
        }
        withForgedError(domain: libfprint.fp_device_retry_quark(), code: 77) { error in
            #expect(GLibError.consume(error).domain == .invalid)
        }
    }

    /// A `GError` that GLib did not allocate, whose message points into a page that is not mapped.
    private func withForgedError(domain: GQuark, code: Int32, _ body: (UnsafeMutablePointer<GError>) -> Void) {
        let page = Int(sysconf(Int32(_SC_PAGESIZE)))
        let guardPage = mmap(nil, page, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0)!
        defer { munmap(guardPage, page) }
        let error = UnsafeMutablePointer<GError>.allocate(capacity: 1)
        defer { error.deallocate() }
        error.initialize(to: GError(domain: domain, code: code, message: guardPage.assumingMemoryBound(to: gchar.self)))
        body(error)
    }
}
