// GamegateOam.cs: gamegate's oam bridge in-process from C# (Unity, Godot C#,
// any Mono or .NET program), through the C ABI of gamegate-oam.h.
//
// OamNative holds the P/Invoke declarations; OamBridge is the client an
// engine keeps for its lifetime: Send()/Request() from any thread, and
// Poll() once per frame on the engine's own thread, which hands it every
// message (responses to their callbacks, tool calls to the registered tools,
// notifications to OnNotification). The bridge's callback runs on a thread
// of the bridge's: it only queues the line, so engine code never runs there.
//
// The library is libgamegate-oam-1.so.0, found by the dynamic linker, or
// the file $OAM_LIBRARY names (gamegate's library or its compatibility name
// libOpenAppleModelsFFI.so), loaded before the first call.
//
// SPDX-License-Identifier: LGPL-2.1-or-later

using System;
using System.Collections.Concurrent;
using System.Collections.Generic;
using System.Runtime.CompilerServices;
using System.Runtime.InteropServices;
using System.Text;
using System.Threading;

namespace Gamegate.Oam
{
    /// <summary>The C ABI (gamegate-oam.h), as declared there.</summary>
    public static class OamNative
    {
        public const string Library = "libgamegate-oam-1.so.0";
        public const int Ok = 0;
        public const int ErrorInvalidArgument = -1;
        public const int ErrorInvalidUtf8 = -2;

        /// <summary>oam_message_callback: the line is UTF-8, valid during the call only.</summary>
        [UnmanagedFunctionPointer(CallingConvention.Cdecl)]
        public delegate void MessageCallback(IntPtr jsonLine, IntPtr userData);

        [DllImport(Library, CallingConvention = CallingConvention.Cdecl)]
        public static extern IntPtr oam_bridge_create(MessageCallback callback, IntPtr userData);

        [DllImport(Library, CallingConvention = CallingConvention.Cdecl)]
        public static extern int oam_bridge_send(IntPtr bridge, byte[] jsonLine);

        [DllImport(Library, CallingConvention = CallingConvention.Cdecl)]
        public static extern void oam_bridge_destroy(IntPtr bridge);

        [DllImport(Library, CallingConvention = CallingConvention.Cdecl)]
        public static extern IntPtr oam_version();

        [DllImport(Library, CallingConvention = CallingConvention.Cdecl)]
        public static extern IntPtr oam_call_blocking(IntPtr bridge, byte[] requestJson, int timeoutMs);

        [DllImport(Library, CallingConvention = CallingConvention.Cdecl)]
        public static extern void oam_string_free(IntPtr str);

        [DllImport("libdl.so.2")]
        static extern IntPtr dlopen(string file, int mode);

        [DllImport("libdl.so.2")]
        static extern IntPtr dlerror();

        static int loaded;

        /// <summary>Loads $OAM_LIBRARY, if set, so that the declarations above
        /// bind to it (its soname is the Library above). Idempotent.</summary>
        public static void Load()
        {
            if (Interlocked.Exchange(ref loaded, 1) == 1)
                return;
            string path = Environment.GetEnvironmentVariable("OAM_LIBRARY");
            if (string.IsNullOrEmpty(path))
                return;
            const int RTLD_NOW = 2, RTLD_GLOBAL = 0x100;
            if (dlopen(path, RTLD_NOW | RTLD_GLOBAL) == IntPtr.Zero)
                throw new DllNotFoundException("OAM_LIBRARY=" + path + ": " + Utf8.FromNative(dlerror()));
        }
    }

    /// <summary>Marks a method native code calls: Unity's IL2CPP compiles
    /// such methods ahead of time (it looks for an attribute of this name).</summary>
    [AttributeUsage(AttributeTargets.Method)]
    public sealed class MonoPInvokeCallbackAttribute : Attribute
    {
        public MonoPInvokeCallbackAttribute(Type type)
        {
        }
    }

    /// <summary>UTF-8 both ways: managed strings are UTF-16.</summary>
    public static class Utf8
    {
        /// <summary>A NUL-terminated UTF-8 copy of a string.</summary>
        public static byte[] ToNative(string text)
        {
            int length = Encoding.UTF8.GetByteCount(text);
            byte[] bytes = new byte[length + 1];
            Encoding.UTF8.GetBytes(text, 0, text.Length, bytes, 0);
            return bytes;
        }

        /// <summary>The string at a NUL-terminated UTF-8 pointer.</summary>
        public static string FromNative(IntPtr pointer)
        {
            if (pointer == IntPtr.Zero)
                return null;
            int length = 0;
            while (Marshal.ReadByte(pointer, length) != 0)
                length++;
            byte[] bytes = new byte[length];
            Marshal.Copy(pointer, bytes, 0, length);
            return Encoding.UTF8.GetString(bytes);
        }
    }

    /// <summary>An error response: Code (JSON-RPC) and Name (data.code, prefer it).</summary>
    public sealed class OamException : Exception
    {
        public readonly int Code;
        public readonly string Name;

        public OamException(int code, string name, string message) : base(message)
        {
            Code = code;
            Name = name;
        }
    }

    /// <summary>A tool's failure: the model sees Output as an error (isError).</summary>
    public sealed class OamToolException : Exception
    {
        public readonly string OutputJson;

        public OamToolException(string outputJson) : base(outputJson)
        {
            OutputJson = outputJson;
        }
    }

    /// <summary>One bridge: sessions, NPCs, worlds of one client.</summary>
    public sealed class OamBridge : IDisposable
    {
        // Static, with the bridge found through user_data: what IL2CPP needs
        // of a callback. The delegate lives as long as the class (the garbage
        // collector never takes it); the GCHandle keeps the bridge reachable.
        static readonly OamNative.MessageCallback Callback = OnMessage;

        readonly ConcurrentQueue<string> inbox = new ConcurrentQueue<string>();
        readonly Dictionary<string, Action<string>> pending = new Dictionary<string, Action<string>>();
        readonly Dictionary<string, Func<string, string>> tools = new Dictionary<string, Func<string, string>>();
        readonly object sync = new object();
        GCHandle self;
        IntPtr handle;
        long nextId;

        /// <summary>Every notification (session/event, npc/event, world/changed,
        /// tool/cancel), on the thread that calls Poll().</summary>
        public Action<string, string> OnNotification;

        /// <summary>The last response no Request() waited for (a -32700 for a
        /// malformed message sent with Send(), whose id is null).</summary>
        public string LastUnrouted { get; private set; }

        public OamBridge()
        {
            // Before any method that calls the library is compiled: Mono
            // binds a P/Invoke when it compiles its caller.
            OamNative.Load();
            self = GCHandle.Alloc(this);
            handle = Create(GCHandle.ToIntPtr(self));
            if (handle == IntPtr.Zero)
            {
                self.Free();
                throw new InvalidOperationException("oam_bridge_create failed");
            }
        }

        [MethodImpl(MethodImplOptions.NoInlining)]
        static IntPtr Create(IntPtr userData)
        {
            return OamNative.oam_bridge_create(Callback, userData);
        }

        /// <summary>oam_version(): what initialize reports as server.version.</summary>
        public static string Version
        {
            get { OamNative.Load(); return NativeVersion(); }
        }

        [MethodImpl(MethodImplOptions.NoInlining)]
        static string NativeVersion()
        {
            return Utf8.FromNative(OamNative.oam_version());
        }

        // The bridge's thread: copy the line, queue it, return.
        [MonoPInvokeCallback(typeof(OamNative.MessageCallback))]
        static void OnMessage(IntPtr jsonLine, IntPtr userData)
        {
            var bridge = (OamBridge) GCHandle.FromIntPtr(userData).Target;
            bridge.inbox.Enqueue(Utf8.FromNative(jsonLine));
        }

        /// <summary>Queues one message; any thread.</summary>
        public void Send(string json)
        {
            int status = OamNative.oam_bridge_send(Live(), Utf8.ToNative(json));
            if (status != OamNative.Ok)
                throw new ArgumentException("oam_bridge_send: " + status);
        }

        /// <summary>Sends a request; onResponse(line) gets its whole response
        /// line in a later Poll(). Returns the id used ("cs-N").</summary>
        public string Request(string method, string paramsJson, Action<string> onResponse)
        {
            string id = "cs-" + Interlocked.Increment(ref nextId);
            lock (sync)
                pending[id] = onResponse;
            Send("{\"jsonrpc\":\"2.0\",\"id\":\"" + id + "\",\"method\":" + Json.Quote(method) +
                 (paramsJson != null ? ",\"params\":" + paramsJson : "") + "}");
            return id;
        }

        /// <summary>oam_call_blocking(): the result JSON, or OamException. Not
        /// from the thread that runs Poll() while a tool call is expected.</summary>
        public string Call(string method, string paramsJson, int timeoutMs)
        {
            string request = "{\"method\":" + Json.Quote(method) +
                             (paramsJson != null ? ",\"params\":" + paramsJson : "") + "}";
            IntPtr answer = OamNative.oam_call_blocking(Live(), Utf8.ToNative(request), timeoutMs);
            string line;
            try
            {
                line = Utf8.FromNative(answer);
            }
            finally
            {
                OamNative.oam_string_free(answer);
            }
            return ResultOf(line);
        }

        /// <summary>The result of a response line, or OamException for an error.</summary>
        public static string ResultOf(string responseLine)
        {
            string error = Json.Member(responseLine, "error");
            if (error != null)
                throw new OamException((int) Json.Number(Json.Member(error, "code")),
                                       Json.String(Json.Member(Json.Member(error, "data") ?? "{}", "code")),
                                       Json.String(Json.Member(error, "message")));
            return Json.Member(responseLine, "result");
        }

        /// <summary>Registers the engine's tool: run(argumentsJson) returns the
        /// output as JSON (throw OamToolException for an error output). Tools
        /// run on the thread that calls Poll().</summary>
        public void RegisterTool(string name, Func<string, string> run)
        {
            lock (sync)
                tools[name] = run;
        }

        /// <summary>Hands every queued message to its handler, on this thread
        /// (call it once per frame). Returns how many were handled.</summary>
        public int Poll()
        {
            int count = 0;
            string line;
            while (inbox.TryDequeue(out line))
            {
                count++;
                Dispatch(line);
            }
            return count;
        }

        /// <summary>Waits until the response of a request has come (a test's
        /// or a loading screen's helper; an engine polls per frame).</summary>
        public void PollUntil(Func<bool> done, int timeoutMs)
        {
            var deadline = DateTime.UtcNow.AddMilliseconds(timeoutMs);
            while (!done())
            {
                if (DateTime.UtcNow > deadline)
                    throw new TimeoutException("no answer within " + timeoutMs + " ms");
                if (Poll() == 0)
                    Thread.Sleep(1);
            }
        }

        void Dispatch(string line)
        {
            string method = Json.String(Json.Member(line, "method"));
            string idJson = Json.Member(line, "id");
            if (method == null)
            {
                Action<string> onResponse = null;
                string id = idJson != null ? Json.String(idJson) : null;
                lock (sync)
                {
                    if (id != null && pending.TryGetValue(id, out onResponse))
                        pending.Remove(id);
                }
                if (onResponse != null)
                    onResponse(line);
                else
                    LastUnrouted = line;
                return;
            }
            if (idJson != null)
            {
                AnswerRequest(idJson, method, Json.Member(line, "params"));
                return;
            }
            var notify = OnNotification;
            if (notify != null)
                notify(method, Json.Member(line, "params"));
        }

        void AnswerRequest(string idJson, string method, string paramsJson)
        {
            if (method != "tool/call")
            {
                Send("{\"jsonrpc\":\"2.0\",\"id\":" + idJson + ",\"error\":{\"code\":-32601,\"message\":" +
                     Json.Quote("Method '" + method + "' not found.") + ",\"data\":{\"code\":\"method_not_found\"}}}");
                return;
            }
            string call = Json.Member(paramsJson ?? "{}", "call") ?? "{}";
            string name = Json.String(Json.Member(call, "name"));
            Func<string, string> run = null;
            lock (sync)
            {
                if (name != null)
                    tools.TryGetValue(name, out run);
            }
            string result;
            try
            {
                if (run == null)
                    throw new OamToolException(Json.Quote("No tool named '" + name + "' in this client."));
                result = "{\"output\":" + run(Json.Member(call, "arguments") ?? "{}") + "}";
            }
            catch (OamToolException error)
            {
                result = "{\"output\":" + error.OutputJson + ",\"isError\":true}";
            }
            Send("{\"jsonrpc\":\"2.0\",\"id\":" + idJson + ",\"result\":" + result + "}");
        }

        IntPtr Live()
        {
            if (handle == IntPtr.Zero)
                throw new ObjectDisposedException("OamBridge");
            return handle;
        }

        /// <summary>Cancels every turn and frees the bridge; no message comes after.</summary>
        public void Dispose()
        {
            IntPtr bridge = handle;
            handle = IntPtr.Zero;
            if (bridge == IntPtr.Zero)
                return;
            OamNative.oam_bridge_destroy(bridge);
            self.Free();
        }
    }

    /// <summary>Just enough JSON to route messages: a top-level member's raw
    /// text, strings and numbers. Use the engine's JSON library for content.</summary>
    public static class Json
    {
        public static string Quote(string text)
        {
            var builder = new StringBuilder("\"");
            foreach (char c in text)
            {
                switch (c)
                {
                case '"': builder.Append("\\\""); break;
                case '\\': builder.Append("\\\\"); break;
                case '\n': builder.Append("\\n"); break;
                case '\r': builder.Append("\\r"); break;
                case '\t': builder.Append("\\t"); break;
                default:
                    if (c < ' ')
                        builder.Append("\\u").Append(((int) c).ToString("x4"));
                    else
                        builder.Append(c);
                    break;
                }
            }
            return builder.Append('"').ToString();
        }

        /// <summary>The raw JSON of member `name` of the object `json`, or null.</summary>
        public static string Member(string json, string name)
        {
            int i = Skip(json, 0);
            if (i >= json.Length || json[i] != '{')
                return null;
            i++;
            while (true)
            {
                i = Skip(json, i);
                if (i >= json.Length || json[i] == '}')
                    return null;
                int keyEnd = End(json, i);
                string key = String(json.Substring(i, keyEnd - i));
                i = Skip(json, keyEnd);
                if (i >= json.Length || json[i] != ':')
                    return null;
                int start = Skip(json, i + 1);
                int end = End(json, start);
                if (key == name)
                    return json.Substring(start, end - start);
                i = Skip(json, end);
                if (i < json.Length && json[i] == ',')
                    i++;
            }
        }

        /// <summary>A JSON string's text (null for anything else).</summary>
        public static string String(string json)
        {
            if (json == null || json.Length < 2 || json[0] != '"')
                return null;
            var builder = new StringBuilder();
            for (int i = 1; i < json.Length - 1; i++)
            {
                char c = json[i];
                if (c != '\\')
                {
                    builder.Append(c);
                    continue;
                }
                c = json[++i];
                switch (c)
                {
                case 'n': builder.Append('\n'); break;
                case 'r': builder.Append('\r'); break;
                case 't': builder.Append('\t'); break;
                case 'b': builder.Append('\b'); break;
                case 'f': builder.Append('\f'); break;
                case 'u':
                    builder.Append((char) Convert.ToInt32(json.Substring(i + 1, 4), 16));
                    i += 4;
                    break;
                default: builder.Append(c); break;
                }
            }
            return builder.ToString();
        }

        public static double Number(string json)
        {
            return double.Parse(json, System.Globalization.CultureInfo.InvariantCulture);
        }

        static int Skip(string json, int i)
        {
            while (i < json.Length && char.IsWhiteSpace(json[i]))
                i++;
            return i;
        }

        // The end of the value starting at i.
        static int End(string json, int i)
        {
            if (i >= json.Length)
                return i;
            if (json[i] == '"')
            {
                for (i++; i < json.Length; i++)
                {
                    if (json[i] == '\\')
                        i++;
                    else if (json[i] == '"')
                        return i + 1;
                }
                return i;
            }
            if (json[i] == '{' || json[i] == '[')
            {
                int depth = 0;
                for (; i < json.Length; i++)
                {
                    char c = json[i];
                    if (c == '"')
                        i = End(json, i) - 1;
                    else if (c == '{' || c == '[')
                        depth++;
                    else if ((c == '}' || c == ']') && --depth == 0)
                        return i + 1;
                }
                return i;
            }
            while (i < json.Length && json[i] != ',' && json[i] != '}' && json[i] != ']' && !char.IsWhiteSpace(json[i]))
                i++;
            return i;
        }
    }
}
