// Vault benchmark. One command:
//
//     swift run -c release vault-bench            (1k, 10k and 100k notes of ~1 KB)
//     swift run -c release vault-bench 1000 5000  (other sizes)
//
// For each size: a fresh vault (calibrated passcode cost) in a scratch directory under $TMPDIR,
// filled with the bulk add, then timed: adding one note and updating one (one durable commit each);
// then a fresh child process (this binary with --reads) times opening with the master key, reading
// single notes (each checked against its bucket of the manifest), listing all titles and searching
// every note, and reports its own peak memory, apart from creation's scrypt run.
import Crypto
import Foundation
import Vault

#if canImport(Glibc)
    import Glibc
#endif

/// A small deterministic generator, so every run writes the same notes.
struct SplitMix: RandomNumberGenerator {
    var state: UInt64
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

let words = """
    apple river stone cloud paper garden window silver morning letter orange bridge candle forest \
    market yellow pencil winter summer planet rocket violet shadow thunder meadow harbor lantern \
    basket mirror copper breeze island marble velvet anchor falcon pepper ribbon saddle timber
    """.split(separator: " ").map(String.init)

func makeNote(_ index: Int, _ generator: inout SplitMix, stamp: Date) -> Note {
    var body = ""
    while body.utf8.count < 1000 { body += words.randomElement(using: &generator)! + " " }
    let title = "\(words.randomElement(using: &generator)!) \(words.randomElement(using: &generator)!) \(index)"
    return Note(
        title: title, body: body, tags: [words.randomElement(using: &generator)!, "bench"], created: stamp,
        modified: stamp)
}

/// Wall-clock times, sorted, and the CPU time of the fastest run (other processes on a shared
/// machine stretch wall time; CPU time shows what the operation itself costs).
func measure(_ runs: Int, _ body: () throws -> Void) rethrows -> [Duration] {
    let clock = ContinuousClock()
    var results: [Duration] = []
    for _ in 0..<runs {
        let start = clock.now
        try body()
        results.append(clock.now - start)
    }
    return results.sorted()
}

func cpuTime() -> Duration {
    var spec = timespec()
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &spec)
    return .seconds(spec.tv_sec) + .nanoseconds(spec.tv_nsec)
}

/// The CPU time of one run of `body`.
func cpu(_ body: () throws -> Void) rethrows -> Duration {
    let start = cpuTime()
    try body()
    return cpuTime() - start
}

func ms(_ duration: Duration) -> String {
    let value = Double(duration.components.seconds) * 1000 + Double(duration.components.attoseconds) / 1e15
    return String(format: "%.2f ms", value)
}

/// This process's peak resident memory: VmHWM from /proc (getrusage's ru_maxrss survives fork
/// and exec on Linux, so it would report the parent's peak in the read-side child).
func peakMemoryMB() -> Double {
    if let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8),
        let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmHWM:") }),
        let kib = Double(line.split(separator: " ", omittingEmptySubsequences: true).dropFirst().first ?? "")
    {
        return kib / 1024
    }
    var usage = rusage()
    getrusage(RUSAGE_SELF.rawValue, &usage)
    return Double(usage.ru_maxrss) / 1024
}

func hex(_ key: SymmetricKey) -> String {
    key.withUnsafeBytes { $0.map { String(format: "%02x", $0) }.joined() }
}

func key(fromHex line: String) -> SymmetricKey {
    var bytes: [UInt8] = []
    var index = line.startIndex
    while line.distance(from: index, to: line.endIndex) >= 2 {
        let next = line.index(index, offsetBy: 2)
        bytes.append(UInt8(line[index..<next], radix: 16) ?? 0)
        index = next
    }
    return SymmetricKey(data: bytes)
}

/// The read side, in a fresh process so its peak memory is not the scrypt run's of creation:
/// open with the master key, list, search. Prints one line of numbers for the parent.
func measureReads(directory: String, size: Int) throws {
    let key = key(fromHex: readLine() ?? "")
    let opens = try measure(5) { try Vault.open(in: directory, using: .masterKey(key)).close() }
    let vault = try Vault.open(in: directory, using: .masterKey(key))
    var listed = 0
    let lists = try measure(3) { listed = try vault.list().count }
    let listCPU = try cpu { _ = try vault.list() }
    precondition(listed == size, "listed \(listed) of \(size)")
    // Single reads (`notes show`): 200 notes spread over the id range, each read once.
    let ids = try vault.list().map(\.id).sorted { $0.uuidString < $1.uuidString }
    let sample = stride(from: 0, to: ids.count, by: max(1, ids.count / 200)).map { ids[$0] }
    var reads: [Duration] = []
    for id in sample { reads += try measure(1) { _ = try vault.note(id: id) } }
    reads.sort()
    // A word in no note: every body is decrypted and scanned.
    let searches = try measure(3) { _ = try vault.search("Zebra-Not-There") }
    let searchCPU = try cpu { _ = try vault.search("Zebra-Not-There") }
    let found = try vault.search("COPPER").count
    precondition(found > 0)
    print(
        "\(ms(opens[2]))|\(ms(reads[reads.count / 2])) / \(ms(reads[reads.count - 1]))|"
            + "\(ms(lists[0])) (\(ms(listCPU)))|\(ms(searches[0])) (\(ms(searchCPU)))|"
            + String(format: "%.0f MB", peakMemoryMB()))
}

if CommandLine.arguments.count == 4, CommandLine.arguments[1] == "--reads", let size = Int(CommandLine.arguments[3]) {
    do {
        try measureReads(directory: CommandLine.arguments[2], size: size)
        exit(0)
    } catch {
        print("vault-bench: \(error)")
        exit(1)
    }
}

// `vault-bench --populate DIR N`: adds N generated notes to an existing vault (the passcode on
// stdin), for benchmarks of the CLI at scale (bench/notes-bench.sh).
if CommandLine.arguments.count == 4, CommandLine.arguments[1] == "--populate", let count = Int(CommandLine.arguments[3]) {
    do {
        let passcode = readLine(strippingNewline: true) ?? ""
        let vault = try Vault.open(in: CommandLine.arguments[2], using: .passcode(passcode))
        var generator = SplitMix(state: 42)
        let stamp = Date()
        var batch: [Note] = []
        for index in 0..<count {
            batch.append(makeNote(index, &generator, stamp: stamp))
            if batch.count == 10_000 || index == count - 1 {
                try vault.add(batch)
                batch.removeAll(keepingCapacity: true)
            }
        }
        vault.close()
        exit(0)
    } catch {
        print("vault-bench: \(error)")
        exit(1)
    }
}

// `vault-bench --scan DIR N list|search|newest`: one list, one search or one list of the newest 20
// of a vault of N notes kept in DIR (made on first use, with a cheap passcode cost and its key
// beside it in DIR.key), for instruction counts, profiles and peak memory of the scan alone
// (valgrind --tool=callgrind, perf record).
if CommandLine.arguments.count == 5, CommandLine.arguments[1] == "--scan", let count = Int(CommandLine.arguments[3]) {
    do {
        let directory = CommandLine.arguments[2]
        let keyFile = directory + ".key"
        if !FileManager.default.fileExists(atPath: keyFile) {
            let (vault, _) = try Vault.create(
                in: directory, passcode: "benchmark passcode", kind: .test, cost: .insecureForTestsOnly())
            var generator = SplitMix(state: 42)
            let stamp = Date()
            var index = 0
            while index < count {
                let batch = min(10_000, count - index)
                try vault.add((0..<batch).map { makeNote(index + $0, &generator, stamp: stamp) })
                index += batch
            }
            try hex(try vault.exportMasterKey()).write(toFile: keyFile, atomically: true, encoding: .utf8)
            vault.close()
        }
        let key = key(fromHex: try String(contentsOfFile: keyFile, encoding: .utf8))
        let vault = try Vault.open(in: directory, using: .masterKey(key))
        let found =
            switch CommandLine.arguments[4] {
            case "search": try vault.search("Zebra-Not-There").count
            // `notes list -n 20`: the newest 20, in memory that should not grow with the vault.
            case "newest": try vault.list(limit: 20).count
            default: try vault.list().count
            }
        print(found)
        vault.close()
        exit(0)
    } catch {
        print("vault-bench: \(error)")
        exit(1)
    }
}

let sizes = CommandLine.arguments.dropFirst().compactMap { Int($0) }
let plan = sizes.isEmpty ? [1_000, 10_000, 100_000] : sizes
let scratch = FileManager.default.temporaryDirectory.path + "/vault-bench-\(getpid())"
mkdir(scratch, 0o700)
defer { try? FileManager.default.removeItem(atPath: scratch) }
let executable = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]

print("add one, update one: median / slowest of 20 single-note commits each (synchronous=FULL).")
print("note read: median / slowest of 200 single-note reads spread over the id range.")
print("list, search: best wall time of 3 runs, CPU time of one run (all threads) in brackets; open: median of 5.")
print("peak RSS (create) includes the calibrated scrypt run; peak RSS (read) is a fresh process that opens,")
print("lists and searches.")
print("")
print(
    "notes    add one             update one          open (SMK)  note read           list titles            "
        + "search all             file      peak RSS create / read")
do {
    for size in plan {
        let directory = scratch + "/\(size)"
        let (vault, _) = try Vault.create(in: directory, passcode: "benchmark passcode", kind: .test)
        let key = try vault.exportMasterKey()
        var generator = SplitMix(state: 42)
        let stamp = Date()
        var index = 0
        while index < size - 20 {
            let batch = min(10_000, size - 20 - index)
            try vault.add((0..<batch).map { makeNote(index + $0, &generator, stamp: stamp) })
            index += batch
        }
        let adds = try measure(20) {
            let note = makeNote(index, &generator, stamp: stamp)
            try vault.add(title: note.title, body: note.body, tags: note.tags)
            index += 1
        }
        // Notes spread over the id range, so updates touch many buckets.
        let targets = try vault.list().map(\.id).shuffled(using: &generator).prefix(20)
        var updates: [Duration] = []
        for id in targets {
            var note = try vault.note(id: id)
            note.body += " edited"
            updates += try measure(1) { try vault.update(note) }
        }
        updates.sort()
        vault.close()
        if size == plan[0] {
            let unlock = try measure(1) {
                try Vault.open(in: directory, using: .passcode("benchmark passcode")).close()
            }
            print("(open with the passcode, calibrated scrypt: \(ms(unlock[0])))")
        }

        let child = Process()
        child.executableURL = URL(fileURLWithPath: executable)
        child.arguments = ["--reads", directory, String(size)]
        let input = Pipe()
        let output = Pipe()
        child.standardInput = input
        child.standardOutput = output
        try child.run()
        input.fileHandleForWriting.write(Data((hex(key) + "\n").utf8))
        try input.fileHandleForWriting.close()
        let reads = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        child.waitUntilExit()
        let parts = reads.trimmingCharacters(in: .whitespacesAndNewlines).split(separator: "|").map(String.init)
        guard child.terminationStatus == 0, parts.count == 5 else {
            print("vault-bench: the read measurement failed: \(reads)")
            exit(1)
        }
        let attributes = try FileManager.default.attributesOfItem(atPath: directory + "/vault.sqlite")
        let fileMB = Double((attributes[.size] as? NSNumber)?.intValue ?? 0) / 1_048_576
        print(
            String(size).padding(toLength: 9, withPad: " ", startingAt: 0)
                + "\(ms(adds[10])) / \(ms(adds[19]))".padding(toLength: 20, withPad: " ", startingAt: 0)
                + "\(ms(updates[10])) / \(ms(updates[19]))".padding(toLength: 20, withPad: " ", startingAt: 0)
                + parts[0].padding(toLength: 12, withPad: " ", startingAt: 0)
                + parts[1].padding(toLength: 20, withPad: " ", startingAt: 0)
                + parts[2].padding(toLength: 23, withPad: " ", startingAt: 0)
                + parts[3].padding(toLength: 23, withPad: " ", startingAt: 0)
                + String(format: "%.0f MB", fileMB).padding(toLength: 10, withPad: " ", startingAt: 0)
                + String(format: "%.0f MB", peakMemoryMB()) + " / " + parts[4])
        try? FileManager.default.removeItem(atPath: directory)
    }
} catch {
    print("vault-bench: \(error)")
    exit(1)
}
