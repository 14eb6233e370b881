/// A three-way merge of texts by lines (diff3): a change made on one side only is taken; the same
/// change on both sides is taken once; different changes to the same lines (overlapping hunks)
/// are a conflict, for which the merged text keeps `ours` and the caller keeps `theirs` whole.
enum LineMerge {
    struct Result: Equatable {
        var text: String
        var conflicted: Bool
    }

    /// Above this many cells the middle of a text is compared as one block (no line matching), so
    /// a huge note cannot make a merge take long: it then merges only if one side left it as it was.
    static let comparisonLimit = 4_000_000

    static func merge(base: String, ours: String, theirs: String) -> Result {
        if ours == theirs || theirs == base { return Result(text: ours, conflicted: false) }
        if ours == base { return Result(text: theirs, conflicted: false) }
        let (o, a, b) = (lines(base), lines(ours), lines(theirs))
        let matchA = matches(o, a)
        let matchB = matches(o, b)
        var merged: [Substring] = []
        var conflicted = false
        var (i, j, k) = (0, 0, 0)
        while i < o.count || j < a.count || k < b.count {
            // The stable run: base lines both sides kept in place.
            while i < o.count, matchA[i] == j, matchB[i] == k {
                merged.append(o[i])
                (i, j, k) = (i + 1, j + 1, k + 1)
            }
            if i >= o.count && j >= a.count && k >= b.count { break }
            // The next base line both sides kept: the end of this chunk.
            var m = i
            while m < o.count, matchA[m] == nil || matchB[m] == nil { m += 1 }
            let (endA, endB) = m < o.count ? (matchA[m]!, matchB[m]!) : (a.count, b.count)
            let chunkO = o[i..<m]
            let chunkA = a[j..<endA]
            let chunkB = b[k..<endB]
            if chunkA.elementsEqual(chunkO) {
                merged.append(contentsOf: chunkB)
            } else if chunkB.elementsEqual(chunkO) || chunkA.elementsEqual(chunkB) {
                merged.append(contentsOf: chunkA)
            } else {
                conflicted = true
                merged.append(contentsOf: chunkA)
            }
            (i, j, k) = (m, endA, endB)
        }
        return Result(text: merged.joined(separator: "\n"), conflicted: conflicted)
    }

    /// Lines without their separators; joined with "\n" they give the text back exactly.
    static func lines(_ text: String) -> [Substring] {
        text.split(separator: "\n", omittingEmptySubsequences: false)
    }

    /// For each line of `base`, the index of the line of `other` it matches in a longest common
    /// subsequence (nil where it was changed or removed). Indices increase.
    static func matches(_ base: [Substring], _ other: [Substring]) -> [Int?] {
        var result = [Int?](repeating: nil, count: base.count)
        // Common prefix and suffix first: most edits touch a few lines in the middle.
        var start = 0
        while start < base.count, start < other.count, base[start] == other[start] {
            result[start] = start
            start += 1
        }
        var endBase = base.count
        var endOther = other.count
        while endBase > start, endOther > start, base[endBase - 1] == other[endOther - 1] {
            endBase -= 1
            endOther -= 1
            result[endBase] = endOther
        }
        let n = endBase - start
        let m = endOther - start
        guard n > 0, m > 0, (n + 1) * (m + 1) <= comparisonLimit else { return result }
        // Longest common subsequence of the middles, by dynamic programming from the end.
        let width = m + 1
        var table = [Int32](repeating: 0, count: (n + 1) * width)
        for x in stride(from: n - 1, through: 0, by: -1) {
            for y in stride(from: m - 1, through: 0, by: -1) {
                table[x * width + y] =
                    base[start + x] == other[start + y]
                    ? table[(x + 1) * width + y + 1] + 1 : max(table[(x + 1) * width + y], table[x * width + y + 1])
            }
        }
        var (x, y) = (0, 0)
        while x < n, y < m {
            if base[start + x] == other[start + y] {
                result[start + x] = start + y
                x += 1
                y += 1
            } else if table[(x + 1) * width + y] >= table[x * width + y + 1] {
                x += 1
            } else {
                y += 1
            }
        }
        return result
    }
}
