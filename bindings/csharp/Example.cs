// Example.cs: a castle guard NPC with a client tool, in-process through
// gamegate's C ABI from C# (the README's example). A scripted model stands in
// for a real one, so that it runs anywhere:
//   mcs Example.cs GamegateOam.cs && OAM_LIBRARY=... mono Example.exe
//
// SPDX-License-Identifier: LGPL-2.1-or-later

using System;
using Gamegate.Oam;

static class Example
{
    static void Main()
    {
        using (var bridge = new OamBridge())
        {
            // Runs on this thread, inside Poll(): where an engine may touch its scene.
            bridge.RegisterTool("open_gate", arguments => "\"the portcullis chain is jammed\"");
            string guard = "{\"npc\":\"guard\",\"persona\":{\"name\":\"Brom\"},\"tools\":[{\"name\":\"open_gate\"," +
                "\"description\":\"Open a named gate.\"}],\"options\":{\"groundingTool\":\"open_gate\",\"replyFormat\":\"text\"}," +
                "\"model\":{\"type\":\"scripted\",\"steps\":[{\"toolCalls\":[{\"name\":\"open_gate\",\"arguments\":{}}]}," +
                "{\"template\":\"[angry] No luck: {toolOutput}.\"}]}}";
            string reply = null;
            bridge.Request("npc/create", guard, created => OamBridge.ResultOf(created));
            bridge.Request("npc/talk", "{\"npc\":\"guard\",\"line\":\"Open the north gate!\"}",
                           response => reply = OamBridge.ResultOf(response));
            bridge.PollUntil(() => reply != null, 10000);   // an engine calls Poll() once per frame
            Console.WriteLine("Brom ({0}): {1}", Json.String(Json.Member(reply, "emotion")),
                              Json.String(Json.Member(reply, "line")));
        }
    }
}
