// GLUE (the whole file): every file of this seed app sees what `import Foundation` brings on iOS
// (Security's names, URLSession's delegate types), as `crosscheck run --app DIR` gives a team's app.
@_exported import AppleImplicitImports
