// TestGamegateOam.cs: the C# binding (bindings/csharp/GamegateOam.cs) with
// Mono against the built libgamegate-oam: UTF-8 both ways, responses and
// tool calls handed to the polling thread, the callback kept alive across
// garbage collections, blocking calls and their timeout, errors, Dispose,
// and the README's example. Prints one line per case; exit status 1 on a
// failure.
//
// SPDX-License-Identifier: LGPL-2.1-or-later

using System;
using System.Collections.Generic;
using System.Diagnostics;
using System.Threading;
using Gamegate.Oam;

static class TestGamegateOam
{
    static int failed;
    static int scale = Environment.GetEnvironmentVariable("GAMEGATE_TEST_WRAPPER") != null ? 20 : 1;

    static void Expect(bool ok, string what)
    {
        if (!ok)
            throw new Exception("expected: " + what);
    }

    static void ExpectEqual(string actual, string expected, string what)
    {
        if (actual != expected)
            throw new Exception(what + ": expected " + expected + ", got " + actual);
    }

    static string Scripted(string steps)
    {
        return "\"model\":{\"type\":\"scripted\",\"steps\":" + steps + "}";
    }

    // A request answered in a later Poll() on this thread: its result.
    static string Await(OamBridge bridge, string method, string paramsJson)
    {
        string response = null;
        int main = Thread.CurrentThread.ManagedThreadId;
        int handledOn = -1;
        bridge.Request(method, paramsJson, line => { response = line; handledOn = Thread.CurrentThread.ManagedThreadId; });
        bridge.PollUntil(() => response != null, 10000 * scale);
        Expect(handledOn == main, "the response is handled on the polling thread");
        return OamBridge.ResultOf(response);
    }

    static void Version(OamBridge bridge)
    {
        string hello = Await(bridge, "initialize", "{\"protocolVersion\":\"1.0\"}");
        ExpectEqual(Json.String(Json.Member(Json.Member(hello, "server"), "version")), OamBridge.Version,
                    "server.version");
        ExpectEqual(Json.String(Json.Member(Json.Member(hello, "server"), "name")), "gamegate", "server.name");
    }

    static void Utf8BothWays(OamBridge bridge)
    {
        string text = "Héllo, wörld ✓ 🐉 \"quoted\" \\ tab\t";
        Await(bridge, "session/create", "{\"session\":\"echo\"," + Scripted("[{\"template\":\"{prompt}\"}]") + "}");
        string result = Await(bridge, "session/respond",
                              "{\"session\":\"echo\",\"prompt\":" + Json.Quote(text) + "}");
        ExpectEqual(Json.String(Json.Member(result, "text")), text, "the text back");
        Expect(Utf8.FromNative(IntPtr.Zero) == null, "NULL is null");
    }

    static void ToolOnPollingThread(OamBridge bridge)
    {
        int main = Thread.CurrentThread.ManagedThreadId;
        int ranOn = -1;
        string arguments = null;
        bridge.RegisterTool("open_gate", args => { ranOn = Thread.CurrentThread.ManagedThreadId; arguments = args; return "{\"opened\":false}"; });
        bridge.RegisterTool("jam", args => { throw new OamToolException("\"jammed\""); });
        Await(bridge, "session/create", "{\"session\":\"guard\",\"tools\":[{\"name\":\"open_gate\",\"description\":\"Open.\"}," +
              "{\"name\":\"jam\",\"description\":\"Jam.\"}],\"options\":{\"toolChoice\":\"required\"}," +
              Scripted("[{\"toolCalls\":[{\"name\":\"open_gate\",\"arguments\":{\"gate\":\"north\"}},{\"name\":\"jam\",\"arguments\":{}}]}," +
                       "{\"template\":\"{toolOutputs}\"}]") + "}");
        var events = new List<string>();
        bridge.OnNotification = (method, paramsJson) => events.Add(method + " " + Json.String(Json.Member(Json.Member(paramsJson, "event"), "type")));
        string result = Await(bridge, "session/respond", "{\"session\":\"guard\",\"prompt\":\"Open.\",\"stream\":true}");
        bridge.OnNotification = null;
        Expect(ranOn == main, "the tool ran on the polling thread");
        ExpectEqual(arguments, "{\"gate\":\"north\"}", "arguments");
        ExpectEqual(Json.String(Json.Member(result, "text")), "{\"opened\":false}\nError: jammed", "what the model saw");
        Expect(events.Contains("session/event toolCallStarted") && events.Contains("session/event toolCallCompleted"),
               "events: " + string.Join(", ", events));
    }

    // The callback delegate must survive collections while the bridge runs.
    static void CallbackSurvivesCollections(OamBridge bridge)
    {
        Await(bridge, "session/create", "{\"session\":\"chatty\"," + Scripted("[{\"text\":\"" + string.Concat(System.Linq.Enumerable.Repeat("word ", 100)) + "\",\"chunks\":100}]") + "}");
        string response = null;
        int events = 0;
        bridge.OnNotification = (method, paramsJson) => events++;
        bridge.Request("session/respond", "{\"session\":\"chatty\",\"prompt\":\"go\",\"stream\":true}", line => response = line);
        var watch = Stopwatch.StartNew();
        while (response == null && watch.ElapsedMilliseconds < 10000 * scale)
        {
            GC.Collect();
            GC.WaitForPendingFinalizers();
            bridge.Poll();
        }
        bridge.OnNotification = null;
        Expect(response != null, "the turn ended");
        Expect(events > 50, "events streamed (" + events + ")");
        for (int i = 0; i < 200; i++)
        {
            GC.Collect();
            ExpectEqual(Await(bridge, "ping", null), "{}", "ping " + i);
        }
    }

    static void Blocking(OamBridge bridge)
    {
        ExpectEqual(bridge.Call("ping", null, 10000 * scale), "{}", "blocking ping");
        bridge.Call("session/create", "{\"session\":\"slow\"," + Scripted("[{\"text\":\"never\",\"delayMs\":600000},{\"text\":\"next\"}]") + "}", 10000 * scale);
        try
        {
            bridge.Call("session/respond", "{\"session\":\"slow\",\"prompt\":\"a\"}", 200);
            Expect(false, "a timeout");
        }
        catch (OamException error)
        {
            Expect(error.Code == -32024 && error.Name == "timeout", "timeout: " + error.Code + " " + error.Name);
        }
        string next = bridge.Call("session/respond", "{\"session\":\"slow\",\"prompt\":\"b\"}", 10000 * scale);
        ExpectEqual(Json.String(Json.Member(next, "text")), "next", "the cancelled turn let the next one run");
    }

    static void Errors(OamBridge bridge)
    {
        try
        {
            Await(bridge, "session/respond", "{\"session\":\"nope\",\"prompt\":\"hi\"}");
            Expect(false, "an error");
        }
        catch (OamException error)
        {
            Expect(error.Code == -32020 && error.Name == "session_not_found", "session_not_found");
        }
        // Malformed JSON comes back through the callback, as a -32700 with a null id.
        string parseError = null;
        bridge.OnNotification = null;
        bridge.Send("not json");
        var watch = Stopwatch.StartNew();
        while (parseError == null && watch.ElapsedMilliseconds < 10000 * scale)
        {
            bridge.Poll();
            Thread.Sleep(1);
            parseError = bridge.LastUnrouted;
        }
        Expect(parseError != null && parseError.Contains("\"code\":-32700"), "-32700: " + parseError);
    }

    static void Dispose()
    {
        var bridge = new OamBridge();
        int seen = 0;
        bridge.OnNotification = (method, paramsJson) => seen++;
        bridge.Request("ping", null, line => seen++);
        bridge.Dispose();
        bridge.Dispose();
        bridge.Poll();
        Expect(seen <= 1, "at most the ping's answer, queued before");
        try
        {
            bridge.Send("{}");
            Expect(false, "ObjectDisposedException");
        }
        catch (ObjectDisposedException)
        {
        }
    }

    static void Example(string example)
    {
        var start = new ProcessStartInfo("mono", example) { UseShellExecute = false, RedirectStandardOutput = true };
        using (var process = Process.Start(start))
        {
            string output = process.StandardOutput.ReadToEnd();
            process.WaitForExit();
            Expect(process.ExitCode == 0, "the example exits 0");
            ExpectEqual(output, "Brom (angry): No luck: the portcullis chain is jammed.\n", "its output");
        }
    }

    static void Run(string name, Action test)
    {
        try
        {
            test();
            Console.WriteLine("ok - " + name);
        }
        catch (Exception error)
        {
            failed++;
            Console.WriteLine("not ok - " + name + ": " + error);
        }
    }

    static int Main(string[] args)
    {
        using (var bridge = new OamBridge())
        {
            Run("version", () => Version(bridge));
            Run("utf8-both-ways", () => Utf8BothWays(bridge));
            Run("tool-on-polling-thread", () => ToolOnPollingThread(bridge));
            Run("callback-survives-collections", () => CallbackSurvivesCollections(bridge));
            Run("blocking", () => Blocking(bridge));
            Run("errors", () => Errors(bridge));
        }
        Run("dispose", Dispose);
        Run("example", () => Example(args[0]));
        Console.WriteLine(failed == 0 ? "all passed" : failed + " failed");
        return failed == 0 ? 0 : 1;
    }
}
