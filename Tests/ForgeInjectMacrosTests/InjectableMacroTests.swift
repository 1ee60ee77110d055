import SwiftSyntaxMacrosGenericTestSupport
import Testing

@Suite("@Injectable expansion")
struct InjectableMacroTests {
  @Test("one defaulted parameter per stored let with a type and no value")
  func storedLets() {
    assertExpansion(
      """
      @Injectable
      final class ViewModel {
        let networkService: NetworkServiceProtocol
        let a, b: ClockProtocol
        var count = 0
        static let shared: Int
        let constant: Int = 1
      }
      """,
      expandedSource: """
        final class ViewModel {
          let networkService: NetworkServiceProtocol
          let a, b: ClockProtocol
          var count = 0
          static let shared: Int
          let constant: Int = 1

          init(
            networkService: NetworkServiceProtocol = ForgeInject.ForgeInjection.resolve("ViewModel.networkService", fileID: "TestModule/test.swift", line: 3),
            a: ClockProtocol = ForgeInject.ForgeInjection.resolve("ViewModel.a", fileID: "TestModule/test.swift", line: 4),
            b: ClockProtocol = ForgeInject.ForgeInjection.resolve("ViewModel.b", fileID: "TestModule/test.swift", line: 4)
          ) {
            self.networkService = networkService
            self.a = a
            self.b = b
          }
        }
        """
    )
  }

  @Test("a public type gets a public init; a closure parameter is @escaping")
  func publicAndEscaping() {
    assertExpansion(
      """
      @Injectable
      public struct Handler {
        let onDone: () -> Void
      }
      """,
      expandedSource: """
        public struct Handler {
          let onDone: () -> Void

          public init(
            onDone: @escaping () -> Void = ForgeInject.ForgeInjection.resolve("Handler.onDone", fileID: "TestModule/test.swift", line: 3)
          ) {
            self.onDone = onDone
          }
        }
        """
    )
  }

  @Test("actors are supported")
  func actor() {
    assertExpansion(
      """
      @Injectable
      actor Store {
        let database: DatabaseProtocol
      }
      """,
      expandedSource: """
        actor Store {
          let database: DatabaseProtocol

          init(
            database: DatabaseProtocol = ForgeInject.ForgeInjection.resolve("Store.database", fileID: "TestModule/test.swift", line: 3)
          ) {
            self.database = database
          }
        }
        """
    )
  }

  @Test("nothing to inject gives init() {}")
  func empty() {
    assertExpansion(
      """
      @Injectable
      struct Empty {
        var x = 1
      }
      """,
      expandedSource: """
        struct Empty {
          var x = 1

          init() {
          }
        }
        """
    )
  }

  @Test("combines with @Inject, whose properties are vars it leaves alone")
  func withInject() {
    assertExpansion(
      """
      @Injectable
      final class Screen {
        let service: Service
        @Inject var analytics: Analytics
      }
      """,
      expandedSource: """
        final class Screen {
          let service: Service
          var analytics: Analytics {
            get {
              _analytics.value
            }
          }

          private let _analytics = ForgeInject.InjectedDependency<Analytics>("Screen.analytics", lazy: true, fileID: "TestModule/test.swift", line: 4)

          init(
            service: Service = ForgeInject.ForgeInjection.resolve("Screen.service", fileID: "TestModule/test.swift", line: 3)
          ) {
            self.service = service
          }
        }
        """
    )
  }

  @Test("on an enum: an error with a fix-it removing the attribute", arguments: ["enum", "protocol"])
  func unsupported(kind: String) {
    let article = kind == "enum" ? "an" : "a"
    assertExpansion(
      """
      @Injectable
      \(kind) Thing {}
      """,
      expandedSource: """
        \(kind) Thing {}
        """,
      diagnostics: [
        DiagnosticSpec(
          id: .init(domain: "ForgeInjectMacros", id: "injectableUnsupportedType"),
          message: "'@Injectable' applies to a class, struct or actor, not to \(article) \(kind)",
          line: 1,
          column: 1,
          fixIts: [FixItSpec(message: "Remove '@Injectable'")]
        )
      ],
      applyFixIts: ["Remove '@Injectable'"],
      fixedSource: """

        \(kind) Thing {}
        """
    )
  }

  @Test("a stored var without an initial value: an error with a fix-it adding one (issue 11)")
  func varWithoutValue() {
    assertExpansion(
      """
      @Injectable
      final class Screen {
        let clock: ClockProtocol
        var taps: Int
        var label: String?
        var doubled: Int { taps * 2 }
        @Inject var analytics: AnalyticsServiceProtocol
      }
      """,
      expandedSource: """
        final class Screen {
          let clock: ClockProtocol
          var taps: Int
          var label: String?
          var doubled: Int { taps * 2 }
          var analytics: AnalyticsServiceProtocol {
            get {
              _analytics.value
            }
          }

          private let _analytics = ForgeInject.InjectedDependency<AnalyticsServiceProtocol>("Screen.analytics", lazy: true, fileID: "TestModule/test.swift", line: 7)

          init(
            clock: ClockProtocol = ForgeInject.ForgeInjection.resolve("Screen.clock", fileID: "TestModule/test.swift", line: 3)
          ) {
            self.clock = clock
          }
        }
        """,
      diagnostics: [
        DiagnosticSpec(
          id: .init(domain: "ForgeInjectMacros", id: "injectableVarWithoutValue"),
          message: """
            '@Injectable' injects stored 'let's only; give 'var taps' an initial value, \
            or make it a 'let' to inject it
            """,
          line: 4,
          column: 7,
          fixIts: [FixItSpec(message: "Add an initial value")]
        )
      ],
      applyFixIts: ["Add an initial value"],
      fixedSource: """
        @Injectable
        final class Screen {
          let clock: ClockProtocol
          var taps: Int = <#value#>
          var label: String?
          var doubled: Int { taps * 2 }
          @Inject var analytics: AnalyticsServiceProtocol
        }
        """
    )
  }

  @Test("a let of a plain value type: an error with a fix-it giving it a value")
  func plainValue() {
    assertExpansion(
      """
      @Injectable
      struct Row {
        let id: Int
        let clock: ClockProtocol
      }
      """,
      expandedSource: """
        struct Row {
          let id: Int
          let clock: ClockProtocol

          init(
            clock: ClockProtocol = ForgeInject.ForgeInjection.resolve("Row.clock", fileID: "TestModule/test.swift", line: 4)
          ) {
            self.clock = clock
          }
        }
        """,
      diagnostics: [
        DiagnosticSpec(
          id: .init(domain: "ForgeInjectMacros", id: "injectablePlainValue"),
          message: """
            '@Injectable' would resolve 'id: Int' from the container, but a plain value is not a \
            dependency; give it an initial value, or write the initialiser yourself
            """,
          line: 3,
          column: 7,
          fixIts: [FixItSpec(message: "Add an initial value")]
        )
      ],
      applyFixIts: ["Add an initial value"],
      fixedSource: """
        @Injectable
        struct Row {
          let id: Int = <#value#>
          let clock: ClockProtocol
        }
        """
    )
  }

  @Test("a let with neither a type nor a value: an error with a fix-it adding the type")
  func missingType() {
    assertExpansion(
      """
      @Injectable
      struct Row {
        let clock
      }
      """,
      expandedSource: """
        struct Row {
          let clock

          init() {
          }
        }
        """,
      diagnostics: [
        DiagnosticSpec(
          id: .init(domain: "ForgeInjectMacros", id: "injectableMissingType"),
          message: "'@Injectable' needs the type of 'clock' to resolve it; add a type annotation",
          line: 3,
          column: 7,
          fixIts: [FixItSpec(message: "Add a type annotation")]
        )
      ],
      applyFixIts: ["Add a type annotation"],
      fixedSource: """
        @Injectable
        struct Row {
          let clock: <#Type#>
        }
        """
    )
  }
}
