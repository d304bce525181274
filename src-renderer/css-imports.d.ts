// Vite bundles the stylesheets main.tsx imports for their side effect. TypeScript 7 (the typecheck's compiler) checks that
// every side-effect import resolves, so a stylesheet needs a module declaration.
declare module '*.css'
