import ForgeCore
import Testing

@Suite("Layer decision")
struct LayerDecisionTests {
  /// One row: the inputs, and the layer that must serve.
  struct Row: CustomTestStringConvertible, Sendable {
    let scoped: Int?
    let container: Bool
    let preview: Bool
    let kept: Bool
    let reach: Int
    let expected: Layer
    var testDescription: String {
      "scoped \(scoped.map(String.init) ?? "-") container \(container) preview \(preview) kept \(kept) reach \(reach)"
    }
  }

  /// Every combination of the five inputs, with the layer the documented
  /// order gives: scoped override, container-wide override, preview, own
  /// factory kept where its dependencies are overridden.
  static let rows: [Row] = {
    var rows: [Row] = []
    for scoped in [nil, 1, 2] as [Int?] {
      for container in [false, true] {
        for preview in [false, true] {
          for kept in [false, true] {
            for reach in [0, 1, 2] {
              let expected: Layer =
                if let scoped { .scopedOverride(depth: scoped) } else if container {
                  .containerOverride
                } else if preview {
                  .preview
                } else { .ownFactory(keptAtDepth: kept ? reach : 0) }
              rows.append(
                Row(
                  scoped: scoped, container: container, preview: preview, kept: kept, reach: reach, expected: expected))
            }
          }
        }
      }
    }
    return rows
  }()

  @Test("each combination is served by the layer the documented order names", arguments: rows)
  func decide(row: Row) {
    let asked = Counter()
    let layer = Layer.decide(
      scopedOverrideDepth: row.scoped,
      hasContainerOverride: row.container,
      servesPreview: row.preview,
      isKept: row.kept,
      reachDepth: {
        asked.increment()
        return row.reach
      }
    )
    #expect(layer == row.expected)
    // The reach walks the graph: asked only when it decides something.
    let needsReach = row.scoped == nil && !row.container && !row.preview && row.kept
    #expect(asked.count == (needsReach ? 1 : 0))
  }

  @Test("the table covers every combination")
  func coverage() {
    #expect(Self.rows.count == 3 * 2 * 2 * 2 * 3)
  }
}
