// A child process for the Fingerprint tests and the benchmark: proves that a print saved by one
// process verifies in another, and measures the reader layer alone.
//   fprint-probe verify DRIVER PRINT.json   prints match / no-match / retry:REASON, exits 0 / 1 / 3
//   fprint-probe enroll DRIVER PRINT.json   enrolls the right index finger into PRINT.json, exits 0
// On an error it prints it and exits 2.
import Fingerprint

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
#if canImport(Glibc)
    import Glibc
#endif

let arguments = CommandLine.arguments
guard arguments.count == 4, ["verify", "enroll"].contains(arguments[1]) else {
    let usage = "usage: fprint-probe verify|enroll DRIVER PRINT.json\n"
    _ = usage.withCString { write(2, $0, strlen($0)) }
    exit(64)
}
let file = URL(fileURLWithPath: arguments[3])

do {
    let context = LibfprintContext()
    let reader = try await context.reader(matching: arguments[2])
    if arguments[1] == "enroll" {
        let print = try await reader.enroll(.rightIndex, username: "probe", timeout: .seconds(20)) { _ in }
        try JSONEncoder().encode(print).write(to: file)
        exit(0)
    }
    let print = try JSONDecoder().decode(EnrolledPrint.self, from: Data(contentsOf: file))
    switch try await reader.verify(print, timeout: .seconds(20)) {
    case .match:
        Swift.print("match")
        exit(0)
    case .noMatch:
        Swift.print("no-match")
        exit(1)
    case .retry(let reason):
        Swift.print("retry:\(reason.rawValue)")
        exit(3)
    case .notInReaderStorage:
        Swift.print("not-stored")
        exit(4)
    }
} catch {
    Swift.print("error: \(error)")
    exit(2)
}
