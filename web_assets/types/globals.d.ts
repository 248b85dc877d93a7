// What the console page can find on the platform beyond TypeScript's own DOM types, for the
// checkJs pass over web_assets/js (see jsconfig.json). Types only: nothing here runs.

/** The draft WebMCP API: native in Chromium 156 behind a flag, the shell's shim elsewhere. */
interface ModelContext extends EventTarget {
  registerTool(tool: object, options?: { signal?: AbortSignal; exposedTo?: string[] }): Promise<void>;
  getTools(options?: { fromOrigins?: string[] }): Promise<any[]>;
  executeTool(tool: object, input?: object, options?: { signal?: AbortSignal }): Promise<string>;
  ontoolchange: ((event: Event) => void) | null;
  ontoolactivated: ((event: Event) => void) | null;
  ontoolcancel: ((event: Event) => void) | null;
}

/** Its interface object on the global ([Exposed=Window, SecureContext], no constructor). As in
 *  TypeScript's DOM types for other such interfaces, `new` is declared although calling it
 *  throws ("Illegal constructor"); a page reaches it for `prototype` and `instanceof`. */
declare var ModelContext: {
  prototype: ModelContext;
  new (): ModelContext;
};

interface Document {
  readonly modelContext?: ModelContext;
}

interface Window {
  /** The page's side of the protocol with the desktop shell (js/shell_api.js). */
  understudyShell?: import('../js/shell_api.js').ShellGlobal | null;
  /** The probe page's entry point (js/webmcp/probe_page.js). */
  runConformance?: (options?: any) => Promise<object>;
}

/** Qt's qwebchannel.js, injected with the bridge into its isolated world. */
/** Qt's channel client (qwebchannel.js): only what bridge.js touches. */
interface QtChannel {
  execCallbacks: Record<string, unknown>;
  execId: number;
  handleResponse(message: unknown): void;
}
declare const QWebChannel: new (transport: unknown, ready: (channel: any) => void) => QtChannel;
declare const qt: { webChannelTransport: unknown };
