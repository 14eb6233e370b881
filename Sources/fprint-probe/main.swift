// A child process for the Fingerprint tests: proves that a print saved by one process verifies in
// another. Usage: fprint-probe verify DRIVER PRINT.json
// Prints "match", "no-match" or "retry:REASON" and exits 0, 1 or 3; on an error prints it and exits 2.
import Fingerprint
import Foundation

let arguments = CommandLine.arguments
guard arguments.count == 4, arguments[1] == "verify" else {
    FileHandle.standardError.write(Data("usage: fprint-probe verify DRIVER PRINT.json\n".utf8))
    exit(64)
}

do {
    let print = try JSONDecoder().decode(EnrolledPrint.self, from: Data(contentsOf: URL(fileURLWithPath: arguments[3])))
    let context = LibfprintContext()
    let reader = try await context.reader(matching: arguments[2])
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
    }
} catch {
    Swift.print("error: \(error)")
    exit(2)
}
