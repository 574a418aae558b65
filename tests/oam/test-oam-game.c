/* test-oam-game.c: the game methods of oam spec section 6 over real pipes:
 * decision/decide, decision/decideMany, content/generate, the world methods with
 * subscriptions and world/changed, and the npc methods. Every exchange is a pipelined
 * script whose complete output is compared, message for message.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <glib/gstdio.h>

#include "oam-test.h"

static void
test_decide (void)
{
  const char *lines[] = {
    "> {\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"decision/decide\",\"params\":{\"situation\":\"A knight charges.\",\"options\":[{\"id\":\"flee\",\"description\":\"Run into the woods\"},\"fight\"],\"actor\":{\"name\":\"Snik\",\"role\":\"a goblin\",\"personality\":\"timid\"},\"context\":{\"hp\":3},\"model\":{\"type\":\"scripted\",\"steps\":[{\"json\":{\"reasoning\":\"Snik is timid.\",\"optionID\":\"flee\",\"confidence\":75}}]}}}",
    "> {\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"decision/decide\",\"params\":{\"situation\":\"x\",\"options\":[\"only\"]}}",
    "< {\"jsonrpc\":\"2.0\",\"id\":2,\"result\":{\"optionID\":\"only\",\"reasoning\":\"\",\"confidence\":100,\"toolCalls\":[],\"usage\":{\"inputTokens\":0,\"cachedInputTokens\":0,\"outputTokens\":0,\"totalTokens\":0},\"isFallback\":false}}",
    "< {\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"optionID\":\"flee\",\"reasoning\":\"Snik is timid.\",\"confidence\":75,\"toolCalls\":[],\"usage\":{\"inputTokens\":78,\"cachedInputTokens\":0,\"outputTokens\":16,\"totalTokens\":94},\"isFallback\":false}}",
    NULL
  };
  oam_run_exchange (NULL, NULL, lines);
}
static void
test_decide_errors (void)
{
  const char *lines[] = {
    "> {\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"decision/decide\",\"params\":{\"situation\":\"x\",\"options\":[\"a\",\"a\"]}}",
    "> {\"jsonrpc\":\"2.0\",\"id\":4,\"method\":\"decision/decide\",\"params\":{\"situation\":\"x\",\"options\":[\"a\",\"b\"],\"fallbackOptionID\":\"c\"}}",
    "> {\"jsonrpc\":\"2.0\",\"id\":5,\"method\":\"decision/decide\",\"params\":{\"options\":[\"a\",\"b\"]}}",
    "> {\"jsonrpc\":\"2.0\",\"id\":6,\"method\":\"decision/decide\",\"params\":{\"situation\":\"x\",\"options\":[\"a\",\"b\"],\"actor\":\"nobody\"}}",
    "> {\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"decision/decide\",\"params\":{\"situation\":\"x\",\"options\":[\"a\",\"b\"],\"toolChoice\":{\"tool\":\"peek\"}}}",
    "< {\"jsonrpc\":\"2.0\",\"id\":3,\"error\":{\"code\":-32602,\"message\":\"Invalid params: 'options[1]': duplicate option id 'a'\",\"data\":{\"code\":\"invalid_params\"}}}",
    "< {\"jsonrpc\":\"2.0\",\"id\":4,\"error\":{\"code\":-32602,\"message\":\"Invalid params: 'fallbackOptionID': 'c' is not one of the options\",\"data\":{\"code\":\"invalid_params\"}}}",
    "< {\"jsonrpc\":\"2.0\",\"id\":5,\"error\":{\"code\":-32602,\"message\":\"Invalid params: 'situation' is required\",\"data\":{\"code\":\"invalid_params\"}}}",
    "< {\"jsonrpc\":\"2.0\",\"id\":6,\"error\":{\"code\":-32050,\"message\":\"NPC 'nobody' not found\",\"data\":{\"code\":\"npc_not_found\",\"npc\":\"nobody\"}}}",
    "< {\"jsonrpc\":\"2.0\",\"id\":7,\"error\":{\"code\":-32602,\"message\":\"Invalid params: 'toolChoice': there is no tool 'peek'\",\"data\":{\"code\":\"invalid_params\"}}}",
    NULL
  };
  oam_run_exchange (NULL, NULL, lines);
}
static void
test_decide_fallback (void)
{
  const char *lines[] = {
    "> {\"jsonrpc\":\"2.0\",\"id\":5,\"method\":\"decision/decide\",\"params\":{\"situation\":\"x\",\"options\":[\"a\",\"b\"],\"fallbackOptionID\":\"b\",\"model\":{\"type\":\"scripted\",\"steps\":[{\"error\":\"guardrail_violation\"}]}}}",
    "> {\"jsonrpc\":\"2.0\",\"id\":6,\"method\":\"decision/decide\",\"params\":{\"situation\":\"x\",\"options\":[\"a\",\"b\"],\"model\":{\"type\":\"scripted\",\"steps\":[{\"error\":\"guardrail_violation\",\"message\":\"Blocked.\"}]}}}",
    "< {\"jsonrpc\":\"2.0\",\"id\":5,\"result\":{\"optionID\":\"b\",\"reasoning\":\"\",\"confidence\":0,\"toolCalls\":[],\"usage\":{\"inputTokens\":0,\"cachedInputTokens\":0,\"outputTokens\":0,\"totalTokens\":0},\"isFallback\":true}}",
    "< {\"jsonrpc\":\"2.0\",\"id\":6,\"error\":{\"code\":-32002,\"message\":\"Blocked.\",\"data\":{\"code\":\"guardrail_violation\"}}}",
    NULL
  };
  oam_run_exchange (NULL, NULL, lines);
}
static void
test_decide_many (void)
{
  const char *lines[] = {
    "> {\"jsonrpc\":\"2.0\",\"id\":6,\"method\":\"decision/decideMany\",\"params\":{\"requests\":[{\"situation\":\"s1\",\"options\":[\"a\",\"b\"]},{\"situation\":\"s2\",\"options\":[]},{\"situation\":\"s3\",\"options\":[\"x\"]},7],\"maxConcurrency\":1,\"model\":{\"type\":\"scripted\",\"steps\":[{\"json\":{\"reasoning\":\"r\",\"optionID\":\"b\",\"confidence\":60}}]}}}",
    "> {\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"decision/decideMany\",\"params\":{\"requests\":\"no\"}}",
    "< {\"jsonrpc\":\"2.0\",\"id\":7,\"error\":{\"code\":-32602,\"message\":\"Invalid params: 'requests' must be an array\",\"data\":{\"code\":\"invalid_params\"}}}",
    "< {\"jsonrpc\":\"2.0\",\"id\":6,\"result\":{\"results\":[{\"optionID\":\"b\",\"reasoning\":\"r\",\"confidence\":60,\"toolCalls\":[],\"usage\":{\"inputTokens\":51,\"cachedInputTokens\":0,\"outputTokens\":12,\"totalTokens\":63},\"isFallback\":false},{\"error\":{\"code\":-32602,\"message\":\"Invalid params: 'requests[1].options' must not be empty\",\"data\":{\"code\":\"invalid_params\"}}},{\"optionID\":\"x\",\"reasoning\":\"\",\"confidence\":100,\"toolCalls\":[],\"usage\":{\"inputTokens\":0,\"cachedInputTokens\":0,\"outputTokens\":0,\"totalTokens\":0},\"isFallback\":false},{\"error\":{\"code\":-32602,\"message\":\"Invalid params: 'requests[3]' must be an object\",\"data\":{\"code\":\"invalid_params\"}}}]}}",
    NULL
  };
  oam_run_exchange (NULL, NULL, lines);
}
static void
test_content (void)
{
  const char *lines[] = {
    "> {\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"content/generate\",\"params\":{\"prompt\":\"A sword\",\"context\":{\"level\":3},\"schema\":{\"type\":\"object\",\"properties\":{\"name\":{\"type\":\"string\",\"maxLength\":20},\"damage\":{\"type\":\"integer\"}},\"required\":[\"name\",\"damage\"]},\"model\":{\"type\":\"scripted\",\"steps\":[{\"json\":{\"name\":\"Ironfang\",\"damage\":7}}]}}}",
    "> {\"jsonrpc\":\"2.0\",\"id\":8,\"method\":\"content/generate\",\"params\":{\"prompt\":\"A sword\",\"schema\":{\"type\":\"nope\"}}}",
    "> {\"jsonrpc\":\"2.0\",\"id\":9,\"method\":\"content/generate\",\"params\":{\"schema\":{\"type\":\"object\"}}}",
    "< {\"jsonrpc\":\"2.0\",\"id\":8,\"error\":{\"code\":-32007,\"message\":\"Invalid schema at #/type: unknown type 'nope'\",\"data\":{\"code\":\"invalid_schema\",\"path\":\"#\",\"schemaPath\":\"#/type\"}}}",
    "< {\"jsonrpc\":\"2.0\",\"id\":9,\"error\":{\"code\":-32602,\"message\":\"Invalid params: 'prompt' is required\",\"data\":{\"code\":\"invalid_params\"}}}",
    "< {\"jsonrpc\":\"2.0\",\"id\":7,\"result\":{\"content\":{\"name\":\"Ironfang\",\"damage\":7},\"warnings\":[\"#/properties/name: maxLength '20' is described to the model but not enforced\"]}}",
    NULL
  };
  oam_run_exchange (NULL, NULL, lines);
}
static void
test_world (void)
{
  const char *lines[] = {
    "> {\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"world/create\",\"params\":{\"world\":\"village\",\"state\":{\"player\":{\"gold\":60,\"name\":\"Aria\"}}}}",
    "> {\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"world/subscribe\",\"params\":{\"world\":\"village\",\"path\":\"player.gold\"}}",
    "> {\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"world/subscribe\",\"params\":{\"world\":\"village\"}}",
    "> {\"jsonrpc\":\"2.0\",\"id\":4,\"method\":\"world/set\",\"params\":{\"world\":\"village\",\"path\":\"player.gold\",\"value\":45}}",
    "> {\"jsonrpc\":\"2.0\",\"id\":5,\"method\":\"world/merge\",\"params\":{\"world\":\"village\",\"patch\":{\"player\":{\"name\":null,\"hp\":10}}}}",
    "> {\"jsonrpc\":\"2.0\",\"id\":6,\"method\":\"world/remove\",\"params\":{\"world\":\"village\",\"path\":\"player.gold\"}}",
    "> {\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"world/get\",\"params\":{\"world\":\"village\",\"path\":\"player.gold\"}}",
    "> {\"jsonrpc\":\"2.0\",\"id\":8,\"method\":\"world/snapshot\",\"params\":{\"world\":\"village\"}}",
    "> {\"jsonrpc\":\"2.0\",\"id\":11,\"method\":\"world/unsubscribe\",\"params\":{\"subscription\":\"sub1\"}}",
    "> {\"jsonrpc\":\"2.0\",\"id\":14,\"method\":\"world/create\"}",
    "> {\"jsonrpc\":\"2.0\",\"id\":15,\"method\":\"world/list\"}",
    "> {\"jsonrpc\":\"2.0\",\"id\":16,\"method\":\"world/delete\",\"params\":{\"world\":\"village\"}}",
    "> {\"jsonrpc\":\"2.0\",\"id\":18,\"method\":\"world/set\",\"params\":{\"world\":\"w1\",\"path\":\"list\",\"value\":[]}}",
    "> {\"jsonrpc\":\"2.0\",\"id\":19,\"method\":\"world/set\",\"params\":{\"world\":\"w1\",\"path\":\"list.0\",\"value\":null}}",
    "> {\"jsonrpc\":\"2.0\",\"id\":20,\"method\":\"world/get\",\"params\":{\"world\":\"w1\",\"path\":\"list\"}}",
    "< {\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"world\":\"village\",\"version\":0}}",
    "< {\"jsonrpc\":\"2.0\",\"id\":2,\"result\":{\"subscription\":\"sub1\",\"world\":\"village\",\"path\":\"player.gold\"}}",
    "< {\"jsonrpc\":\"2.0\",\"id\":3,\"result\":{\"subscription\":\"sub2\",\"world\":\"village\",\"path\":\"\"}}",
    "< {\"jsonrpc\":\"2.0\",\"method\":\"world/changed\",\"params\":{\"world\":\"village\",\"subscription\":\"sub1\",\"path\":\"player.gold\",\"oldValue\":60,\"newValue\":45}}",
    "< {\"jsonrpc\":\"2.0\",\"method\":\"world/changed\",\"params\":{\"world\":\"village\",\"subscription\":\"sub2\",\"path\":\"player.gold\",\"oldValue\":60,\"newValue\":45}}",
    "< {\"jsonrpc\":\"2.0\",\"id\":4,\"result\":{\"world\":\"village\",\"path\":\"player.gold\",\"version\":1}}",
    "< {\"jsonrpc\":\"2.0\",\"method\":\"world/changed\",\"params\":{\"world\":\"village\",\"subscription\":\"sub2\",\"path\":\"player.name\",\"oldValue\":\"Aria\"}}",
    "< {\"jsonrpc\":\"2.0\",\"method\":\"world/changed\",\"params\":{\"world\":\"village\",\"subscription\":\"sub2\",\"path\":\"player.hp\",\"newValue\":10}}",
    "< {\"jsonrpc\":\"2.0\",\"id\":5,\"result\":{\"world\":\"village\",\"path\":\"\",\"version\":2}}",
    "< {\"jsonrpc\":\"2.0\",\"method\":\"world/changed\",\"params\":{\"world\":\"village\",\"subscription\":\"sub1\",\"path\":\"player.gold\",\"oldValue\":45}}",
    "< {\"jsonrpc\":\"2.0\",\"method\":\"world/changed\",\"params\":{\"world\":\"village\",\"subscription\":\"sub2\",\"path\":\"player.gold\",\"oldValue\":45}}",
    "< {\"jsonrpc\":\"2.0\",\"id\":6,\"result\":{\"world\":\"village\",\"path\":\"player.gold\",\"removed\":true,\"oldValue\":45,\"version\":3}}",
    "< {\"jsonrpc\":\"2.0\",\"id\":7,\"result\":{\"world\":\"village\",\"path\":\"player.gold\",\"value\":null,\"exists\":false,\"version\":3}}",
    "< {\"jsonrpc\":\"2.0\",\"id\":8,\"result\":{\"world\":\"village\",\"state\":{\"player\":{\"hp\":10}},\"version\":3}}",
    "< {\"jsonrpc\":\"2.0\",\"id\":11,\"result\":{\"subscription\":\"sub1\",\"world\":\"village\",\"path\":\"player.gold\",\"unsubscribed\":true}}",
    "< {\"jsonrpc\":\"2.0\",\"id\":14,\"result\":{\"world\":\"w1\",\"version\":0}}",
    "< {\"jsonrpc\":\"2.0\",\"id\":15,\"result\":{\"worlds\":[{\"world\":\"village\",\"version\":3,\"npcs\":0,\"subscriptions\":1,\"createdAt\":\"T\"},{\"world\":\"w1\",\"version\":0,\"npcs\":0,\"subscriptions\":0,\"createdAt\":\"T\"}]}}",
    "< {\"jsonrpc\":\"2.0\",\"id\":16,\"result\":{\"world\":\"village\",\"deleted\":true,\"endedSubscriptions\":1}}",
    "< {\"jsonrpc\":\"2.0\",\"id\":18,\"result\":{\"world\":\"w1\",\"path\":\"list\",\"version\":1}}",
    "< {\"jsonrpc\":\"2.0\",\"id\":19,\"result\":{\"world\":\"w1\",\"path\":\"list.0\",\"version\":2}}",
    "< {\"jsonrpc\":\"2.0\",\"id\":20,\"result\":{\"world\":\"w1\",\"path\":\"list\",\"value\":[null],\"exists\":true,\"version\":2}}",
    NULL
  };
  oam_run_exchange (NULL, NULL, lines);
}
static void
test_world_errors (void)
{
  const char *lines[] = {
    "> {\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"world/create\",\"params\":{\"world\":\"village\",\"state\":{\"player\":{\"hp\":10}}}}",
    "> {\"jsonrpc\":\"2.0\",\"id\":9,\"method\":\"world/set\",\"params\":{\"world\":\"village\",\"path\":\"player.hp.x\",\"value\":1}}",
    "> {\"jsonrpc\":\"2.0\",\"id\":10,\"method\":\"world/get\",\"params\":{\"world\":\"village\",\"path\":\"a..b\"}}",
    "> {\"jsonrpc\":\"2.0\",\"id\":11,\"method\":\"world/subscribe\",\"params\":{\"world\":\"village\",\"path\":\"a..b\"}}",
    "> {\"jsonrpc\":\"2.0\",\"id\":12,\"method\":\"world/unsubscribe\",\"params\":{\"subscription\":\"sub9\"}}",
    "> {\"jsonrpc\":\"2.0\",\"id\":13,\"method\":\"world/create\",\"params\":{\"world\":\"village\"}}",
    "> {\"jsonrpc\":\"2.0\",\"id\":17,\"method\":\"world/get\",\"params\":{\"world\":\"nowhere\"}}",
    "> {\"jsonrpc\":\"2.0\",\"id\":20,\"method\":\"world/set\",\"params\":{\"world\":\"village\"}}",
    "> {\"jsonrpc\":\"2.0\",\"id\":21,\"method\":\"world/set\",\"params\":{\"world\":\"village\",\"value\":5}}",
    "> {\"jsonrpc\":\"2.0\",\"id\":22,\"method\":\"world/create\",\"params\":{\"state\":[1]}}",
    "< {\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"world\":\"village\",\"version\":0}}",
    "< {\"jsonrpc\":\"2.0\",\"id\":9,\"error\":{\"code\":-32054,\"message\":\"World 'village', path 'player.hp.x': player.hp is not an object or array\",\"data\":{\"code\":\"world_error\",\"world\":\"village\",\"path\":\"player.hp.x\"}}}",
    "< {\"jsonrpc\":\"2.0\",\"id\":10,\"error\":{\"code\":-32054,\"message\":\"World 'village', path 'a..b': 'a..b': empty path segment\",\"data\":{\"code\":\"world_error\",\"world\":\"village\",\"path\":\"a..b\"}}}",
    "< {\"jsonrpc\":\"2.0\",\"id\":11,\"error\":{\"code\":-32054,\"message\":\"World 'village', path 'a..b': 'a..b': empty path segment\",\"data\":{\"code\":\"world_error\",\"world\":\"village\",\"path\":\"a..b\"}}}",
    "< {\"jsonrpc\":\"2.0\",\"id\":12,\"error\":{\"code\":-32056,\"message\":\"Subscription 'sub9' not found\",\"data\":{\"code\":\"subscription_not_found\",\"subscription\":\"sub9\"}}}",
    "< {\"jsonrpc\":\"2.0\",\"id\":13,\"error\":{\"code\":-32053,\"message\":\"World 'village' already exists\",\"data\":{\"code\":\"world_exists\",\"world\":\"village\"}}}",
    "< {\"jsonrpc\":\"2.0\",\"id\":17,\"error\":{\"code\":-32052,\"message\":\"World 'nowhere' not found\",\"data\":{\"code\":\"world_not_found\",\"world\":\"nowhere\"}}}",
    "< {\"jsonrpc\":\"2.0\",\"id\":20,\"error\":{\"code\":-32602,\"message\":\"Invalid params: 'value' is required\",\"data\":{\"code\":\"invalid_params\"}}}",
    "< {\"jsonrpc\":\"2.0\",\"id\":21,\"error\":{\"code\":-32054,\"message\":\"World 'village', path '': The world's root must stay an object\",\"data\":{\"code\":\"world_error\",\"world\":\"village\",\"path\":\"\"}}}",
    "< {\"jsonrpc\":\"2.0\",\"id\":22,\"error\":{\"code\":-32602,\"message\":\"Invalid params: 'state' must be an object\",\"data\":{\"code\":\"invalid_params\"}}}",
    NULL
  };
  oam_run_exchange (NULL, NULL, lines);
}
static void
test_world_limits (void)
{
  const char *lines[] = {
    "> {\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"world/create\"}",
    "> {\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"world/create\"}",
    "> {\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"world/subscribe\",\"params\":{\"world\":\"w1\"}}",
    "> {\"jsonrpc\":\"2.0\",\"id\":4,\"method\":\"world/subscribe\",\"params\":{\"world\":\"w1\"}}",
    "< {\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"world\":\"w1\",\"version\":0}}",
    "< {\"jsonrpc\":\"2.0\",\"id\":2,\"result\":{\"world\":\"w2\",\"version\":0}}",
    "< {\"jsonrpc\":\"2.0\",\"id\":3,\"result\":{\"subscription\":\"sub1\",\"world\":\"w1\",\"path\":\"\"}}",
    "< {\"jsonrpc\":\"2.0\",\"id\":4,\"result\":{\"subscription\":\"sub2\",\"world\":\"w1\",\"path\":\"\"}}",
    NULL
  };
  oam_run_exchange (NULL, NULL, lines);
}
static void
test_npc_talk (void)
{
  const char *lines[] = {
    "> {\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"world/create\",\"params\":{\"world\":\"village\",\"state\":{\"player\":{\"gold\":60},\"shop\":{\"swords\":3}}}}",
    "> {\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"world/subscribe\",\"params\":{\"world\":\"village\",\"path\":\"player\"}}",
    "> {\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"npc/create\",\"params\":{\"npc\":\"gorm\",\"persona\":{\"name\":\"Gorm\",\"role\":\"the village blacksmith\",\"secrets\":[\"He stole the ring.\"]},\"world\":\"village\",\"options\":{\"worldWritable\":[\"player.gold\"],\"memoryTools\":\"all\",\"groundingTool\":\"read_world_state\"},\"model\":{\"type\":\"scripted\",\"steps\":[{\"toolCalls\":[{\"name\":\"read_world_state\",\"arguments\":{\"path\":\"Shop.Swords\"},\"id\":\"r1\"}]},{\"json\":{\"emotion\":\"proud\",\"line\":\"Aye, 3 swords.\",\"player_options\":[\"Buy\",\"More?\",\"Bye\"],\"ends_conversation\":false}},{\"toolCalls\":[{\"name\":\"update_world_state\",\"arguments\":{\"path\":\"player.gold\",\"value\":\"45\"},\"id\":\"u1\"},{\"name\":\"remember_fact\",\"arguments\":{\"fact\":\"Aria paid.\"},\"id\":\"m1\"},{\"name\":\"change_relationship\",\"arguments\":{\"delta\":50},\"id\":\"c1\"}]},{\"error\":\"guardrail_violation\"},{\"text\":\"[happy] Fine day to you.\",\"chunks\":2},{\"error\":\"guardrail_violation\"},{\"error\":\"guardrail_violation\"}]}}}",
    "> {\"jsonrpc\":\"2.0\",\"id\":4,\"method\":\"npc/talk\",\"params\":{\"npc\":\"gorm\",\"line\":\"Got swords?\",\"stream\":true}}",
    "> {\"jsonrpc\":\"2.0\",\"id\":5,\"method\":\"npc/talk\",\"params\":{\"npc\":\"gorm\",\"line\":\"Here is 15 gold.\",\"stream\":true,\"toolChoice\":\"auto\"}}",
    "> {\"jsonrpc\":\"2.0\",\"id\":6,\"method\":\"npc/talk\",\"params\":{\"npc\":\"gorm\",\"line\":\"Hmm\",\"toolChoice\":\"none\",\"stream\":true}}",
    "> {\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"npc/list\"}",
    "< {\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"world\":\"village\",\"version\":0}}",
    "< {\"jsonrpc\":\"2.0\",\"id\":2,\"result\":{\"subscription\":\"sub1\",\"world\":\"village\",\"path\":\"player\"}}",
    "< {\"jsonrpc\":\"2.0\",\"id\":3,\"result\":{\"npc\":\"gorm\",\"tools\":[\"read_world_state\",\"update_world_state\",\"remember_fact\",\"change_relationship\"],\"warnings\":[]}}",
    "< {\"jsonrpc\":\"2.0\",\"id\":7,\"result\":{\"npcs\":[{\"npc\":\"gorm\",\"name\":\"Gorm\",\"role\":\"the village blacksmith\",\"world\":\"village\",\"model\":\"scripted\",\"tools\":[],\"turnCount\":0,\"relationship\":0,\"busy\":true,\"pendingOperations\":2,\"createdAt\":\"T\"}]}}",
    "< {\"jsonrpc\":\"2.0\",\"method\":\"npc/event\",\"params\":{\"npc\":\"gorm\",\"requestId\":4,\"event\":{\"type\":\"toolCallStarted\",\"call\":{\"id\":\"r1\",\"name\":\"read_world_state\",\"arguments\":{\"path\":\"Shop.Swords\"}},\"execution\":\"local\"}}}",
    "< {\"jsonrpc\":\"2.0\",\"method\":\"npc/event\",\"params\":{\"npc\":\"gorm\",\"requestId\":4,\"event\":{\"type\":\"toolCallCompleted\",\"record\":{\"call\":{\"id\":\"r1\",\"name\":\"read_world_state\",\"arguments\":{\"path\":\"Shop.Swords\"}},\"output\":3,\"isError\":false,\"durationSeconds\":0}}}}",
    "< {\"jsonrpc\":\"2.0\",\"method\":\"npc/event\",\"params\":{\"npc\":\"gorm\",\"requestId\":4,\"event\":{\"type\":\"emotion\",\"emotion\":\"proud\"}}}",
    "< {\"jsonrpc\":\"2.0\",\"method\":\"npc/event\",\"params\":{\"npc\":\"gorm\",\"requestId\":4,\"event\":{\"type\":\"lineDelta\",\"delta\":\"Aye, 3 swords.\"}}}",
    "< {\"jsonrpc\":\"2.0\",\"id\":4,\"result\":{\"npc\":\"gorm\",\"line\":\"Aye, 3 swords.\",\"emotion\":\"proud\",\"playerOptions\":[\"Buy\",\"More?\",\"Bye\"],\"endsConversation\":false,\"toolCalls\":[{\"call\":{\"id\":\"r1\",\"name\":\"read_world_state\",\"arguments\":{\"path\":\"Shop.Swords\"}},\"output\":3,\"isError\":false,\"durationSeconds\":0}],\"relationship\":0,\"isFallback\":false,\"usage\":{\"inputTokens\":263,\"cachedInputTokens\":0,\"outputTokens\":46,\"totalTokens\":309}}}",
    "< {\"jsonrpc\":\"2.0\",\"method\":\"npc/event\",\"params\":{\"npc\":\"gorm\",\"requestId\":5,\"event\":{\"type\":\"toolCallStarted\",\"call\":{\"id\":\"u1\",\"name\":\"update_world_state\",\"arguments\":{\"path\":\"player.gold\",\"value\":\"45\"}},\"execution\":\"local\"}}}",
    "< {\"jsonrpc\":\"2.0\",\"method\":\"npc/event\",\"params\":{\"npc\":\"gorm\",\"requestId\":5,\"event\":{\"type\":\"toolCallStarted\",\"call\":{\"id\":\"m1\",\"name\":\"remember_fact\",\"arguments\":{\"fact\":\"Aria paid.\"}},\"execution\":\"local\"}}}",
    "< {\"jsonrpc\":\"2.0\",\"method\":\"npc/event\",\"params\":{\"npc\":\"gorm\",\"requestId\":5,\"event\":{\"type\":\"toolCallStarted\",\"call\":{\"id\":\"c1\",\"name\":\"change_relationship\",\"arguments\":{\"delta\":50}},\"execution\":\"local\"}}}",
    "< {\"jsonrpc\":\"2.0\",\"method\":\"world/changed\",\"params\":{\"world\":\"village\",\"subscription\":\"sub1\",\"path\":\"player.gold\",\"oldValue\":60,\"newValue\":45}}",
    "< {\"jsonrpc\":\"2.0\",\"method\":\"npc/event\",\"params\":{\"npc\":\"gorm\",\"requestId\":5,\"event\":{\"type\":\"toolCallCompleted\",\"record\":{\"call\":{\"id\":\"u1\",\"name\":\"update_world_state\",\"arguments\":{\"path\":\"player.gold\",\"value\":\"45\"}},\"output\":\"Set player.gold to 45.\",\"isError\":false,\"durationSeconds\":0}}}}",
    "< {\"jsonrpc\":\"2.0\",\"method\":\"npc/event\",\"params\":{\"npc\":\"gorm\",\"requestId\":5,\"event\":{\"type\":\"toolCallCompleted\",\"record\":{\"call\":{\"id\":\"m1\",\"name\":\"remember_fact\",\"arguments\":{\"fact\":\"Aria paid.\"}},\"output\":\"Remembered.\",\"isError\":false,\"durationSeconds\":0}}}}",
    "< {\"jsonrpc\":\"2.0\",\"method\":\"npc/event\",\"params\":{\"npc\":\"gorm\",\"requestId\":5,\"event\":{\"type\":\"toolCallCompleted\",\"record\":{\"call\":{\"id\":\"c1\",\"name\":\"change_relationship\",\"arguments\":{\"delta\":50}},\"output\":\"Relationship is now 10.\",\"isError\":false,\"durationSeconds\":0}}}}",
    "< {\"jsonrpc\":\"2.0\",\"method\":\"npc/event\",\"params\":{\"npc\":\"gorm\",\"requestId\":5,\"event\":{\"type\":\"emotion\",\"emotion\":\"happy\"}}}",
    "< {\"jsonrpc\":\"2.0\",\"method\":\"npc/event\",\"params\":{\"npc\":\"gorm\",\"requestId\":5,\"event\":{\"type\":\"lineDelta\",\"delta\":\"Fine \"}}}",
    "< {\"jsonrpc\":\"2.0\",\"method\":\"npc/event\",\"params\":{\"npc\":\"gorm\",\"requestId\":5,\"event\":{\"type\":\"lineDelta\",\"delta\":\"day to you.\"}}}",
    "< {\"jsonrpc\":\"2.0\",\"id\":5,\"result\":{\"npc\":\"gorm\",\"line\":\"Fine day to you.\",\"emotion\":\"happy\",\"playerOptions\":[],\"endsConversation\":false,\"toolCalls\":[{\"call\":{\"id\":\"u1\",\"name\":\"update_world_state\",\"arguments\":{\"path\":\"player.gold\",\"value\":\"45\"}},\"output\":\"Set player.gold to 45.\",\"isError\":false,\"durationSeconds\":0},{\"call\":{\"id\":\"m1\",\"name\":\"remember_fact\",\"arguments\":{\"fact\":\"Aria paid.\"}},\"output\":\"Remembered.\",\"isError\":false,\"durationSeconds\":0},{\"call\":{\"id\":\"c1\",\"name\":\"change_relationship\",\"arguments\":{\"delta\":50}},\"output\":\"Relationship is now 10.\",\"isError\":false,\"durationSeconds\":0}],\"relationship\":10,\"isFallback\":false,\"usage\":{\"inputTokens\":283,\"cachedInputTokens\":0,\"outputTokens\":6,\"totalTokens\":289}}}",
    "< {\"jsonrpc\":\"2.0\",\"method\":\"npc/event\",\"params\":{\"npc\":\"gorm\",\"requestId\":6,\"event\":{\"type\":\"emotion\",\"emotion\":\"neutral\"}}}",
    "< {\"jsonrpc\":\"2.0\",\"method\":\"npc/event\",\"params\":{\"npc\":\"gorm\",\"requestId\":6,\"event\":{\"type\":\"lineDelta\",\"delta\":\"Hm. Let's talk about something else.\"}}}",
    "< {\"jsonrpc\":\"2.0\",\"id\":6,\"result\":{\"npc\":\"gorm\",\"line\":\"Hm. Let's talk about something else.\",\"emotion\":\"neutral\",\"playerOptions\":[],\"endsConversation\":false,\"toolCalls\":[],\"relationship\":10,\"isFallback\":true,\"usage\":{\"inputTokens\":0,\"cachedInputTokens\":0,\"outputTokens\":0,\"totalTokens\":0}}}",
    NULL
  };
  oam_run_exchange (NULL, NULL, lines);
}
/* A structured reply streamed as JSON text: the emotion as soon as the
 * model has moved past it, then the line as it grows. */
static void
test_npc_talk_streamed_structured (void)
{
  const char *lines[] = {
    "> {\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"npc/create\",\"params\":{\"npc\":\"gorm\",\"persona\":{\"name\":\"Gorm\"},\"model\":{\"type\":\"scripted\",\"steps\":[{\"text\":\"{\\\"emotion\\\": \\\"angry\\\", \\\"line\\\": \\\"Get out of my forge, thief!\\\", \\\"player_options\\\": [\\\"Sorry\\\", \\\"Bye\\\", \\\"Fight\\\"], \\\"ends_conversation\\\": true}\",\"chunks\":15},{\"text\":\"{\\\"line\\\": \\\"Fine, \\\\u00e9 \\\", \\\"emotion\\\": \\\"happy\\\", \\\"player_options\\\": [\\\"A\\\", \\\"B\\\", \\\"C\\\"], \\\"ends_conversation\\\": false}\",\"chunks\":6}]}}}",
    "> {\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"npc/talk\",\"params\":{\"npc\":\"gorm\",\"line\":\"Nice forge.\",\"stream\":true}}",
    "> {\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"npc/talk\",\"params\":{\"npc\":\"gorm\",\"line\":\"Sorry.\",\"stream\":true}}",
    "< {\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"npc\":\"gorm\",\"tools\":[],\"warnings\":[]}}",
    "< {\"jsonrpc\":\"2.0\",\"method\":\"npc/event\",\"params\":{\"npc\":\"gorm\",\"requestId\":2,\"event\":{\"type\":\"emotion\",\"emotion\":\"angry\"}}}",
    "< {\"jsonrpc\":\"2.0\",\"method\":\"npc/event\",\"params\":{\"npc\":\"gorm\",\"requestId\":2,\"event\":{\"type\":\"lineDelta\",\"delta\":\"Get \"}}}",
    "< {\"jsonrpc\":\"2.0\",\"method\":\"npc/event\",\"params\":{\"npc\":\"gorm\",\"requestId\":2,\"event\":{\"type\":\"lineDelta\",\"delta\":\"out \"}}}",
    "< {\"jsonrpc\":\"2.0\",\"method\":\"npc/event\",\"params\":{\"npc\":\"gorm\",\"requestId\":2,\"event\":{\"type\":\"lineDelta\",\"delta\":\"of \"}}}",
    "< {\"jsonrpc\":\"2.0\",\"method\":\"npc/event\",\"params\":{\"npc\":\"gorm\",\"requestId\":2,\"event\":{\"type\":\"lineDelta\",\"delta\":\"my \"}}}",
    "< {\"jsonrpc\":\"2.0\",\"method\":\"npc/event\",\"params\":{\"npc\":\"gorm\",\"requestId\":2,\"event\":{\"type\":\"lineDelta\",\"delta\":\"forge, \"}}}",
    "< {\"jsonrpc\":\"2.0\",\"method\":\"npc/event\",\"params\":{\"npc\":\"gorm\",\"requestId\":2,\"event\":{\"type\":\"lineDelta\",\"delta\":\"thief!\"}}}",
    "< {\"jsonrpc\":\"2.0\",\"id\":2,\"result\":{\"npc\":\"gorm\",\"line\":\"Get out of my forge, thief!\",\"emotion\":\"angry\",\"playerOptions\":[\"Sorry\",\"Bye\",\"Fight\"],\"endsConversation\":true,\"toolCalls\":[],\"relationship\":0,\"isFallback\":false,\"usage\":{\"inputTokens\":82,\"cachedInputTokens\":0,\"outputTokens\":33,\"totalTokens\":115}}}",
    "< {\"jsonrpc\":\"2.0\",\"method\":\"npc/event\",\"params\":{\"npc\":\"gorm\",\"requestId\":3,\"event\":{\"type\":\"lineDelta\",\"delta\":\"Fine, \"}}}",
    "< {\"jsonrpc\":\"2.0\",\"method\":\"npc/event\",\"params\":{\"npc\":\"gorm\",\"requestId\":3,\"event\":{\"type\":\"lineDelta\",\"delta\":\"\xc3\xa9"" \"}}}",
    "< {\"jsonrpc\":\"2.0\",\"method\":\"npc/event\",\"params\":{\"npc\":\"gorm\",\"requestId\":3,\"event\":{\"type\":\"emotion\",\"emotion\":\"happy\"}}}",
    "< {\"jsonrpc\":\"2.0\",\"id\":3,\"result\":{\"npc\":\"gorm\",\"line\":\"Fine, \xc3\xa9"" \",\"emotion\":\"happy\",\"playerOptions\":[\"A\",\"B\",\"C\"],\"endsConversation\":false,\"toolCalls\":[],\"relationship\":0,\"isFallback\":false,\"usage\":{\"inputTokens\":116,\"cachedInputTokens\":0,\"outputTokens\":27,\"totalTokens\":143}}}",
    NULL
  };
  oam_run_exchange (NULL, NULL, lines);
}
static void
test_npc_errors (void)
{
  const char *lines[] = {
    "> {\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"npc/create\",\"params\":{\"npc\":\"a\",\"persona\":{\"name\":\"A\"},\"model\":\"scripted\"}}",
    "> {\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"npc/create\",\"params\":{\"npc\":\"a\",\"persona\":{\"name\":\"A\"},\"model\":\"scripted\"}}",
    "> {\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"npc/create\",\"params\":{\"persona\":{\"role\":\"x\"}}}",
    "> {\"jsonrpc\":\"2.0\",\"id\":4,\"method\":\"npc/create\",\"params\":{\"persona\":{\"name\":\"B\"},\"world\":\"nowhere\"}}",
    "> {\"jsonrpc\":\"2.0\",\"id\":5,\"method\":\"npc/create\",\"params\":{\"persona\":{\"name\":\"B\"},\"options\":{\"groundingTool\":\"nope\"}}}",
    "> {\"jsonrpc\":\"2.0\",\"id\":6,\"method\":\"npc/create\",\"params\":{\"persona\":{\"name\":\"B\",\"defaultEmotion\":\"meh\"}}}",
    "> {\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"npc/talk\",\"params\":{\"npc\":\"zzz\",\"line\":\"hi\"}}",
    "> {\"jsonrpc\":\"2.0\",\"id\":8,\"method\":\"npc/talk\",\"params\":{\"npc\":\"a\",\"line\":\"hi\",\"toolChoice\":{\"tool\":\"nope\"}}}",
    "> {\"jsonrpc\":\"2.0\",\"id\":9,\"method\":\"npc/create\",\"params\":{\"persona\":{\"name\":\"B\"},\"options\":{\"replyFormat\":\"poem\",\"bogus\":1}}}",
    "> {\"jsonrpc\":\"2.0\",\"id\":10,\"method\":\"npc/create\",\"params\":{\"persona\":{\"name\":\"B\",\"bogus\":1},\"options\":{\"bogus\":1},\"whatever\":1,\"model\":\"scripted\"}}",
    "< {\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"npc\":\"a\",\"tools\":[],\"warnings\":[]}}",
    "< {\"jsonrpc\":\"2.0\",\"id\":2,\"error\":{\"code\":-32051,\"message\":\"NPC 'a' already exists\",\"data\":{\"code\":\"npc_exists\",\"npc\":\"a\"}}}",
    "< {\"jsonrpc\":\"2.0\",\"id\":3,\"error\":{\"code\":-32602,\"message\":\"Invalid params: 'persona.name' is required\",\"data\":{\"code\":\"invalid_params\"}}}",
    "< {\"jsonrpc\":\"2.0\",\"id\":4,\"error\":{\"code\":-32052,\"message\":\"World 'nowhere' not found\",\"data\":{\"code\":\"world_not_found\",\"world\":\"nowhere\"}}}",
    "< {\"jsonrpc\":\"2.0\",\"id\":5,\"error\":{\"code\":-32602,\"message\":\"Invalid params: 'options.groundingTool': the NPC has no tool 'nope'\",\"data\":{\"code\":\"invalid_params\"}}}",
    "< {\"jsonrpc\":\"2.0\",\"id\":6,\"error\":{\"code\":-32602,\"message\":\"Invalid params: 'persona.defaultEmotion': unknown emotion 'meh'\",\"data\":{\"code\":\"invalid_params\"}}}",
    "< {\"jsonrpc\":\"2.0\",\"id\":7,\"error\":{\"code\":-32050,\"message\":\"NPC 'zzz' not found\",\"data\":{\"code\":\"npc_not_found\",\"npc\":\"zzz\"}}}",
    "< {\"jsonrpc\":\"2.0\",\"id\":8,\"error\":{\"code\":-32011,\"message\":\"The NPC has no tool 'nope'\",\"data\":{\"code\":\"invalid_request\"}}}",
    "< {\"jsonrpc\":\"2.0\",\"id\":9,\"error\":{\"code\":-32602,\"message\":\"Invalid params: 'options.replyFormat' must be \\\"automatic\\\", \\\"structured\\\" or \\\"text\\\"\",\"data\":{\"code\":\"invalid_params\"}}}",
    "< {\"jsonrpc\":\"2.0\",\"id\":10,\"result\":{\"npc\":\"npc1\",\"tools\":[],\"warnings\":[\"unknown parameter 'whatever' ignored\",\"unknown parameter 'persona.bogus' ignored\",\"unknown parameter 'options.bogus' ignored\"]}}",
    NULL
  };
  oam_run_exchange (NULL, NULL, lines);
}
static void
test_npc_bark_cancel_delete (void)
{
  const char *lines[] = {
    "> {\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"npc/create\",\"params\":{\"npc\":\"a\",\"persona\":{\"name\":\"A\",\"role\":\"a guard\"},\"options\":{\"replyFormat\":\"text\"},\"model\":{\"type\":\"scripted\",\"steps\":[{\"text\":\"Rain again.\",\"delayMs\":1500},{\"text\":\"[sad] Later.\",\"delayMs\":5000}]}}}",
    "> {\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"npc/bark\",\"params\":{\"npc\":\"a\",\"situation\":{\"weather\":\"rain\"}}}",
    "> {\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"npc/talk\",\"params\":{\"npc\":\"a\",\"line\":\"hi\"}}",
    "> {\"jsonrpc\":\"2.0\",\"id\":4,\"method\":\"npc/reset\",\"params\":{\"npc\":\"a\",\"clearMemory\":true}}",
    "> {\"jsonrpc\":\"2.0\",\"id\":5,\"method\":\"npc/cancel\",\"params\":{\"npc\":\"a\"}}",
    "> {\"jsonrpc\":\"2.0\",\"id\":6,\"method\":\"npc/delete\",\"params\":{\"npc\":\"a\"}}",
    "> {\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"npc/list\"}",
    "> {\"jsonrpc\":\"2.0\",\"id\":8,\"method\":\"npc/bark\",\"params\":{\"npc\":\"a\"}}",
    "< {\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"npc\":\"a\",\"tools\":[],\"warnings\":[]}}",
    "< {\"jsonrpc\":\"2.0\",\"id\":4,\"error\":{\"code\":-32009,\"message\":\"The request was cancelled\",\"data\":{\"code\":\"cancelled\"}}}",
    "< {\"jsonrpc\":\"2.0\",\"id\":5,\"result\":{\"npc\":\"a\",\"cancelled\":2}}",
    "< {\"jsonrpc\":\"2.0\",\"id\":6,\"result\":{\"npc\":\"a\",\"deleted\":true}}",
    "< {\"jsonrpc\":\"2.0\",\"id\":7,\"result\":{\"npcs\":[]}}",
    "< {\"jsonrpc\":\"2.0\",\"id\":8,\"error\":{\"code\":-32050,\"message\":\"NPC 'a' not found\",\"data\":{\"code\":\"npc_not_found\",\"npc\":\"a\"}}}",
    "< {\"jsonrpc\":\"2.0\",\"id\":3,\"error\":{\"code\":-32009,\"message\":\"The request was cancelled\",\"data\":{\"code\":\"cancelled\"}}}",
    "< {\"jsonrpc\":\"2.0\",\"id\":2,\"result\":{\"npc\":\"a\",\"line\":\"Rain again.\"}}",
    NULL
  };
  oam_run_exchange (NULL, NULL, lines);
}
static void
test_npc_restore (void)
{
  const char *lines[] = {
    "> {\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"world/create\",\"params\":{\"world\":\"keep\"}}",
    "> {\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"npc/restore\",\"params\":{\"state\":{\"npc\":\"gorm\",\"state\":{\"version\":1,\"persona\":{\"name\":\"Gorm\"},\"memory\":{\"facts\":[\"x\"],\"relationship\":5},\"transcript\":{\"type\":\"FoundationModels.Transcript\",\"version\":\"1.1\",\"transcript\":{\"entries\":[{\"role\":\"user\",\"segments\":[{\"type\":\"text\",\"text\":\"Player: hi\"}]},{\"role\":\"response\",\"segments\":[{\"type\":\"text\",\"text\":\"[happy] Hello.\"}]}]}},\"npc\":\"gorm\",\"options\":{\"replyFormat\":\"text\"},\"tools\":[{\"name\":\"check\",\"description\":\"Check.\"}],\"world\":\"gone\"}},\"model\":\"scripted\"}}",
    "> {\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"npc/restore\",\"params\":{\"state\":{\"version\":1,\"persona\":{\"name\":\"Gorm\"},\"npc\":\"gorm\",\"world\":\"keep\"},\"npc\":\"gorm2\",\"tools\":null,\"model\":\"scripted\"}}",
    "> {\"jsonrpc\":\"2.0\",\"id\":4,\"method\":\"npc/restore\",\"params\":{\"state\":{\"version\":1,\"persona\":{\"name\":\"Gorm\"},\"npc\":\"gorm\"}}}",
    "> {\"jsonrpc\":\"2.0\",\"id\":5,\"method\":\"npc/list\"}",
    "> {\"jsonrpc\":\"2.0\",\"id\":6,\"method\":\"world/list\"}",
    "> {\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"npc/state\",\"params\":{\"npc\":\"gorm\",\"settle\":false}}",
    "< {\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"world\":\"keep\",\"version\":0}}",
    "< {\"jsonrpc\":\"2.0\",\"id\":2,\"result\":{\"npc\":\"gorm\",\"tools\":[\"check\"],\"warnings\":[\"the saved world 'gone' no longer exists; dropped\"]}}",
    "< {\"jsonrpc\":\"2.0\",\"id\":3,\"result\":{\"npc\":\"gorm2\",\"tools\":[\"read_world_state\"],\"warnings\":[]}}",
    "< {\"jsonrpc\":\"2.0\",\"id\":4,\"error\":{\"code\":-32051,\"message\":\"NPC 'gorm' already exists\",\"data\":{\"code\":\"npc_exists\",\"npc\":\"gorm\"}}}",
    "< {\"jsonrpc\":\"2.0\",\"id\":5,\"result\":{\"npcs\":[{\"npc\":\"gorm\",\"name\":\"Gorm\",\"role\":\"\",\"world\":null,\"model\":\"scripted\",\"tools\":[\"check\"],\"turnCount\":1,\"relationship\":5,\"busy\":false,\"pendingOperations\":0,\"createdAt\":\"T\"},{\"npc\":\"gorm2\",\"name\":\"Gorm\",\"role\":\"\",\"world\":\"keep\",\"model\":\"scripted\",\"tools\":[],\"turnCount\":0,\"relationship\":0,\"busy\":false,\"pendingOperations\":0,\"createdAt\":\"T\"}]}}",
    "< {\"jsonrpc\":\"2.0\",\"id\":6,\"result\":{\"worlds\":[{\"world\":\"keep\",\"version\":0,\"npcs\":1,\"subscriptions\":0,\"createdAt\":\"T\"}]}}",
    "< {\"jsonrpc\":\"2.0\",\"id\":7,\"result\":{\"npc\":\"gorm\",\"state\":{\"version\":1,\"persona\":{\"name\":\"Gorm\",\"role\":\"\",\"personality\":\"\",\"speakingStyle\":\"\",\"backstory\":\"\",\"goals\":[],\"knowledge\":[],\"secrets\":[],\"defaultEmotion\":\"neutral\",\"maxSentences\":2},\"memory\":{\"facts\":[\"x\"],\"relationship\":5},\"transcript\":{\"type\":\"FoundationModels.Transcript\",\"version\":\"1.1\",\"transcript\":{\"entries\":[{\"id\":\"e0\",\"role\":\"user\",\"segments\":[{\"type\":\"text\",\"id\":\"e0-0\",\"text\":\"Player: hi\"}]},{\"id\":\"e1\",\"role\":\"response\",\"segments\":[{\"type\":\"text\",\"id\":\"e1-0\",\"text\":\"[happy] Hello.\"}]}]}},\"npc\":\"gorm\",\"options\":{\"replyFormat\":\"text\",\"groundingTool\":null,\"toolChoice\":\"explicit\",\"maxToolRounds\":2,\"maxToolCalls\":6,\"toolTimeoutSeconds\":120,\"worldReadable\":[\"\"],\"worldWritable\":[],\"worldContextPaths\":[],\"memoryTools\":[],\"maxFacts\":12,\"maxRelationshipChange\":10,\"secretsUnlockAtRelationship\":50,\"emotions\":[\"neutral\",\"happy\",\"sad\",\"angry\",\"afraid\",\"surprised\",\"suspicious\",\"amused\",\"disgusted\",\"excited\",\"curious\",\"confused\",\"worried\",\"grateful\",\"annoyed\",\"proud\"],\"playerOptionCount\":3,\"canEndConversation\":true,\"extraInstructions\":null,\"compactAfterTurns\":8,\"keepRecentTurns\":2,\"fallbackOnGuardrail\":true,\"fallbackLines\":[\"Hm. Let's talk about something else.\",\"I'd rather not say.\",\"Another time, perhaps.\"],\"temperature\":null,\"maximumResponseTokens\":null,\"barkMaximumTokens\":48},\"tools\":[{\"name\":\"check\",\"description\":\"Check.\"}]}}}",
    NULL
  };
  oam_run_exchange (NULL, NULL, lines);
}
static void
test_decide_as_npc (void)
{
  const char *lines[] = {
    "> {\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"npc/create\",\"params\":{\"npc\":\"snik\",\"persona\":{\"name\":\"Snik\",\"personality\":\"timid\"},\"model\":\"scripted\"}}",
    "> {\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"decision/decide\",\"params\":{\"situation\":\"x\",\"options\":[\"a\",\"b\"],\"actor\":\"snik\",\"model\":{\"type\":\"scripted\",\"steps\":[{\"json\":{\"reasoning\":\"r\",\"optionID\":\"a\",\"confidence\":90}}]}}}",
    "< {\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"npc\":\"snik\",\"tools\":[],\"warnings\":[]}}",
    "< {\"jsonrpc\":\"2.0\",\"id\":2,\"result\":{\"optionID\":\"a\",\"reasoning\":\"r\",\"confidence\":90,\"toolCalls\":[],\"usage\":{\"inputTokens\":73,\"cachedInputTokens\":0,\"outputTokens\":12,\"totalTokens\":85},\"isFallback\":false}}",
    NULL
  };
  oam_run_exchange (NULL, NULL, lines);
}
static void
test_npc_state_restore (void)
{
  const char *lines[] = {
    "> {\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"npc/create\",\"params\":{\"npc\":\"a\",\"persona\":{\"name\":\"A\",\"goals\":[\"sell\"]},\"memory\":{\"facts\":[\"f1\"],\"relationship\":20},\"options\":{\"replyFormat\":\"text\",\"compactAfterTurns\":0},\"model\":{\"type\":\"scripted\",\"steps\":[{\"text\":\"[angry] Go away.\"},{\"text\":\"Rain again.\"},{\"text\":\"[sad] Fine.\"}]}}}",
    "> {\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"npc/talk\",\"params\":{\"npc\":\"a\",\"line\":\"hi\"}}",
    "> {\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"npc/update\",\"params\":{\"npc\":\"a\",\"memory\":{\"relationship\":40,\"summary\":\"Met once.\"},\"persona\":{\"goals\":null,\"role\":\"smith\"}}}",
    "> {\"jsonrpc\":\"2.0\",\"id\":4,\"method\":\"npc/update\",\"params\":{\"npc\":\"a\",\"options\":{\"groundingTool\":\"nope\"}}}",
    "> {\"jsonrpc\":\"2.0\",\"id\":5,\"method\":\"npc/state\",\"params\":{\"npc\":\"a\"}}",
    "> {\"jsonrpc\":\"2.0\",\"id\":6,\"method\":\"npc/state\",\"params\":{\"npc\":\"a\",\"settle\":false}}",
    "< {\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"npc\":\"a\",\"tools\":[],\"warnings\":[]}}",
    "< {\"jsonrpc\":\"2.0\",\"id\":6,\"result\":{\"npc\":\"a\",\"state\":{\"version\":1,\"persona\":{\"name\":\"A\",\"role\":\"\",\"personality\":\"\",\"speakingStyle\":\"\",\"backstory\":\"\",\"goals\":[\"sell\"],\"knowledge\":[],\"secrets\":[],\"defaultEmotion\":\"neutral\",\"maxSentences\":2},\"memory\":{\"facts\":[\"f1\"],\"relationship\":20},\"transcript\":{\"type\":\"FoundationModels.Transcript\",\"version\":\"1.1\",\"transcript\":{\"entries\":[]}},\"npc\":\"a\",\"options\":{\"replyFormat\":\"text\",\"groundingTool\":null,\"toolChoice\":\"explicit\",\"maxToolRounds\":2,\"maxToolCalls\":6,\"toolTimeoutSeconds\":120,\"worldReadable\":[\"\"],\"worldWritable\":[],\"worldContextPaths\":[],\"memoryTools\":[],\"maxFacts\":12,\"maxRelationshipChange\":10,\"secretsUnlockAtRelationship\":50,\"emotions\":[\"neutral\",\"happy\",\"sad\",\"angry\",\"afraid\",\"surprised\",\"suspicious\",\"amused\",\"disgusted\",\"excited\",\"curious\",\"confused\",\"worried\",\"grateful\",\"annoyed\",\"proud\"],\"playerOptionCount\":3,\"canEndConversation\":true,\"extraInstructions\":null,\"compactAfterTurns\":0,\"keepRecentTurns\":2,\"fallbackOnGuardrail\":true,\"fallbackLines\":[\"Hm. Let's talk about something else.\",\"I'd rather not say.\",\"Another time, perhaps.\"],\"temperature\":null,\"maximumResponseTokens\":null,\"barkMaximumTokens\":48},\"tools\":[]}}}",
    "< {\"jsonrpc\":\"2.0\",\"id\":2,\"result\":{\"npc\":\"a\",\"line\":\"Go away.\",\"emotion\":\"angry\",\"playerOptions\":[],\"endsConversation\":false,\"toolCalls\":[],\"relationship\":20,\"isFallback\":false,\"usage\":{\"inputTokens\":148,\"cachedInputTokens\":0,\"outputTokens\":4,\"totalTokens\":152}}}",
    "< {\"jsonrpc\":\"2.0\",\"id\":3,\"result\":{\"npc\":\"a\",\"warnings\":[]}}",
    "< {\"jsonrpc\":\"2.0\",\"id\":4,\"error\":{\"code\":-32602,\"message\":\"Invalid params: 'options.groundingTool': the NPC has no tool 'nope'\",\"data\":{\"code\":\"invalid_params\"}}}",
    "< {\"jsonrpc\":\"2.0\",\"id\":5,\"result\":{\"npc\":\"a\",\"state\":{\"version\":1,\"persona\":{\"name\":\"A\",\"role\":\"smith\",\"personality\":\"\",\"speakingStyle\":\"\",\"backstory\":\"\",\"goals\":[],\"knowledge\":[],\"secrets\":[],\"defaultEmotion\":\"neutral\",\"maxSentences\":2},\"memory\":{\"facts\":[\"f1\"],\"relationship\":40,\"summary\":\"Met once.\"},\"transcript\":{\"type\":\"FoundationModels.Transcript\",\"version\":\"1.1\",\"transcript\":{\"entries\":[{\"id\":\"e0\",\"role\":\"user\",\"segments\":[{\"type\":\"text\",\"id\":\"e0-0\",\"text\":\"Player: hi\"}]},{\"id\":\"e1\",\"role\":\"response\",\"segments\":[{\"type\":\"text\",\"id\":\"e1-0\",\"text\":\"[angry] Go away.\"}]}]}},\"npc\":\"a\",\"options\":{\"replyFormat\":\"text\",\"groundingTool\":null,\"toolChoice\":\"explicit\",\"maxToolRounds\":2,\"maxToolCalls\":6,\"toolTimeoutSeconds\":120,\"worldReadable\":[\"\"],\"worldWritable\":[],\"worldContextPaths\":[],\"memoryTools\":[],\"maxFacts\":12,\"maxRelationshipChange\":10,\"secretsUnlockAtRelationship\":50,\"emotions\":[\"neutral\",\"happy\",\"sad\",\"angry\",\"afraid\",\"surprised\",\"suspicious\",\"amused\",\"disgusted\",\"excited\",\"curious\",\"confused\",\"worried\",\"grateful\",\"annoyed\",\"proud\"],\"playerOptionCount\":3,\"canEndConversation\":true,\"extraInstructions\":null,\"compactAfterTurns\":0,\"keepRecentTurns\":2,\"fallbackOnGuardrail\":true,\"fallbackLines\":[\"Hm. Let's talk about something else.\",\"I'd rather not say.\",\"Another time, perhaps.\"],\"temperature\":null,\"maximumResponseTokens\":null,\"barkMaximumTokens\":48},\"tools\":[]}}}",
    NULL
  };
  oam_run_exchange (NULL, NULL, lines);
}

/* [oam] limits from the configuration file. */
static void
test_limits_from_config (void)
{
  g_autofree char *path = g_build_filename (g_get_tmp_dir (), "oam-limits-test.conf", NULL);
  g_autofree char *env_entry = g_strdup_printf ("GAMEGATE_CONFIG=%s", path);
  const char *env[] = { env_entry, NULL };
  const char *lines[] = {
    "> {\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"npc/create\",\"params\":{\"persona\":{\"name\":\"A\"},\"model\":\"scripted\"}}",
    "> {\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"npc/create\",\"params\":{\"persona\":{\"name\":\"B\"},\"model\":\"scripted\"}}",
    "> {\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"world/create\"}",
    "> {\"jsonrpc\":\"2.0\",\"id\":4,\"method\":\"world/create\"}",
    "> {\"jsonrpc\":\"2.0\",\"id\":5,\"method\":\"world/subscribe\",\"params\":{\"world\":\"w1\"}}",
    "> {\"jsonrpc\":\"2.0\",\"id\":6,\"method\":\"world/subscribe\",\"params\":{\"world\":\"w1\"}}",
    "> {\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"session/create\",\"params\":{\"model\":\"scripted\"}}",
    "< {\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"npc\":\"npc1\",\"tools\":[],\"warnings\":[]}}",
    "< {\"jsonrpc\":\"2.0\",\"id\":2,\"error\":{\"code\":-32055,\"message\":\"Too many NPCs (the limit is 1)\",\"data\":{\"code\":\"limit_reached\",\"limit\":1}}}",
    "< {\"jsonrpc\":\"2.0\",\"id\":3,\"result\":{\"world\":\"w1\",\"version\":0}}",
    "< {\"jsonrpc\":\"2.0\",\"id\":4,\"error\":{\"code\":-32055,\"message\":\"Too many worlds (the limit is 1)\",\"data\":{\"code\":\"limit_reached\",\"limit\":1}}}",
    "< {\"jsonrpc\":\"2.0\",\"id\":5,\"result\":{\"subscription\":\"sub1\",\"world\":\"w1\",\"path\":\"\"}}",
    "< {\"jsonrpc\":\"2.0\",\"id\":6,\"error\":{\"code\":-32055,\"message\":\"Too many subscriptions (the limit is 1)\",\"data\":{\"code\":\"limit_reached\",\"limit\":1}}}",
    "< {\"jsonrpc\":\"2.0\",\"id\":7,\"error\":{\"code\":-32022,\"message\":\"Too many sessions (the limit is 0)\",\"data\":{\"code\":\"session_limit\",\"limit\":0}}}",
    NULL
  };

  g_assert_true (g_file_set_contents (path, "[oam]\nmax-npcs=1\nmax-worlds=1\nmax-subscriptions=1\nmax-sessions=0\n", -1, NULL));
  oam_run_exchange (NULL, env, lines);
  g_unlink (path);
}

/* NPC client tools arrive as tool/call with "npc" in the params. */
static void
test_npc_client_tool (void)
{
  g_autoptr(OamClient) client = oam_client_new (NULL, NULL);

  oam_send (client, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"npc/create\",\"params\":{\"npc\":\"gorm\",\"persona\":{\"name\":\"Gorm\"},\"tools\":[{\"name\":\"check_inventory\",\"description\":\"Stock of an item.\",\"parameters\":{\"type\":\"object\",\"properties\":{\"item\":{\"type\":\"string\"}}}}],\"options\":{\"groundingTool\":\"check_inventory\",\"replyFormat\":\"text\"},"
            OAM_SCRIPT ("[{\"toolCalls\":[{\"name\":\"check_inventory\",\"arguments\":{\"item\":\"iron sword\"},\"id\":\"c1\"}]},{\"template\":\"[proud] Aye: {toolOutput}\"}]") "}}");
  oam_expect (client, "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"npc\":\"gorm\",\"tools\":[\"check_inventory\"],\"warnings\":[]}}");
  oam_send (client, "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"npc/talk\",\"params\":{\"npc\":\"gorm\",\"line\":\"Swords?\",\"context\":\"The player looks rich.\"}}");
  oam_expect (client, "{\"jsonrpc\":\"2.0\",\"id\":\"t-1\",\"method\":\"tool/call\",\"params\":{\"npc\":\"gorm\",\"requestId\":2,\"call\":{\"id\":\"c1\",\"name\":\"check_inventory\",\"arguments\":{\"item\":\"iron sword\"}}}}");
  oam_send (client, "{\"jsonrpc\":\"2.0\",\"id\":\"t-1\",\"result\":{\"output\":{\"stock\":3}}}");
  oam_expect_prefix (client, "{\"jsonrpc\":\"2.0\",\"id\":2,\"result\":{\"npc\":\"gorm\",\"line\":\"Aye: {\\\"stock\\\":3}\",\"emotion\":\"proud\",\"playerOptions\":[],\"endsConversation\":false,\"toolCalls\":[{\"call\":{\"id\":\"c1\",\"name\":\"check_inventory\",\"arguments\":{\"item\":\"iron sword\"}},\"output\":{\"stock\":3},\"isError\":false,\"durationSeconds\":0}],\"relationship\":0,\"isFallback\":false,");
  g_assert_cmpint (oam_client_finish (client, NULL), ==, 0);
}

static void
test_npc_compaction (void)
{
  const char *lines[] = {
    "> {\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"npc/create\",\"params\":{\"npc\":\"a\",\"persona\":{\"name\":\"A\"},\"options\":{\"replyFormat\":\"text\",\"compactAfterTurns\":1,\"keepRecentTurns\":1},\"model\":{\"type\":\"scripted\",\"steps\":[{\"text\":\"[happy] A.\"},{\"text\":\"[sad] B.\"},{\"text\":\"They met twice.\"}]}}}",
    "> {\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"npc/talk\",\"params\":{\"npc\":\"a\",\"line\":\"one\"}}",
    "> {\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"npc/talk\",\"params\":{\"npc\":\"a\",\"line\":\"two\"}}",
    "> {\"jsonrpc\":\"2.0\",\"id\":4,\"method\":\"npc/state\",\"params\":{\"npc\":\"a\"}}",
    "< {\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"npc\":\"a\",\"tools\":[],\"warnings\":[]}}",
    "< {\"jsonrpc\":\"2.0\",\"id\":2,\"result\":{\"npc\":\"a\",\"line\":\"A.\",\"emotion\":\"happy\",\"playerOptions\":[],\"endsConversation\":false,\"toolCalls\":[],\"relationship\":0,\"isFallback\":false,\"usage\":{\"inputTokens\":144,\"cachedInputTokens\":0,\"outputTokens\":3,\"totalTokens\":147}}}",
    "< {\"jsonrpc\":\"2.0\",\"id\":3,\"result\":{\"npc\":\"a\",\"line\":\"B.\",\"emotion\":\"sad\",\"playerOptions\":[],\"endsConversation\":false,\"toolCalls\":[],\"relationship\":0,\"isFallback\":false,\"usage\":{\"inputTokens\":149,\"cachedInputTokens\":0,\"outputTokens\":2,\"totalTokens\":151}}}",
    "< {\"jsonrpc\":\"2.0\",\"id\":4,\"result\":{\"npc\":\"a\",\"state\":{\"version\":1,\"persona\":{\"name\":\"A\",\"role\":\"\",\"personality\":\"\",\"speakingStyle\":\"\",\"backstory\":\"\",\"goals\":[],\"knowledge\":[],\"secrets\":[],\"defaultEmotion\":\"neutral\",\"maxSentences\":2},\"memory\":{\"facts\":[],\"relationship\":0,\"summary\":\"They met twice.\"},\"transcript\":{\"type\":\"FoundationModels.Transcript\",\"version\":\"1.1\",\"transcript\":{\"entries\":[{\"id\":\"e0\",\"role\":\"user\",\"segments\":[{\"type\":\"text\",\"id\":\"e0-0\",\"text\":\"Player: two\"}]},{\"id\":\"e1\",\"role\":\"response\",\"segments\":[{\"type\":\"text\",\"id\":\"e1-0\",\"text\":\"[sad] B.\"}]}]}},\"npc\":\"a\",\"options\":{\"replyFormat\":\"text\",\"groundingTool\":null,\"toolChoice\":\"explicit\",\"maxToolRounds\":2,\"maxToolCalls\":6,\"toolTimeoutSeconds\":120,\"worldReadable\":[\"\"],\"worldWritable\":[],\"worldContextPaths\":[],\"memoryTools\":[],\"maxFacts\":12,\"maxRelationshipChange\":10,\"secretsUnlockAtRelationship\":50,\"emotions\":[\"neutral\",\"happy\",\"sad\",\"angry\",\"afraid\",\"surprised\",\"suspicious\",\"amused\",\"disgusted\",\"excited\",\"curious\",\"confused\",\"worried\",\"grateful\",\"annoyed\",\"proud\"],\"playerOptionCount\":3,\"canEndConversation\":true,\"extraInstructions\":null,\"compactAfterTurns\":1,\"keepRecentTurns\":1,\"fallbackOnGuardrail\":true,\"fallbackLines\":[\"Hm. Let's talk about something else.\",\"I'd rather not say.\",\"Another time, perhaps.\"],\"temperature\":null,\"maximumResponseTokens\":null,\"barkMaximumTokens\":48},\"tools\":[]}}}",
    NULL
  };
  oam_run_exchange (NULL, NULL, lines);
}


/* decideMany's tool/call params carry the decision's index. */
static void
test_decide_many_tool_call (void)
{
  g_autoptr(OamClient) client = oam_client_new (NULL, NULL);

  oam_send (client, "{\"jsonrpc\":\"2.0\",\"id\":6,\"method\":\"decision/decideMany\",\"params\":{\"requests\":[{\"situation\":\"s0\",\"options\":[\"x\"]},{\"situation\":\"s1\",\"options\":[\"a\",\"b\"],\"tools\":[{\"name\":\"scout\",\"description\":\"Scout.\"}],\"toolChoice\":\"required\"}],"
            OAM_SCRIPT ("[{\"toolCalls\":[{\"name\":\"scout\",\"arguments\":{},\"id\":\"s1\"}]},{\"json\":{\"reasoning\":\"r\",\"optionID\":\"b\",\"confidence\":60}}]") "}}");
  oam_expect (client, "{\"jsonrpc\":\"2.0\",\"id\":\"t-1\",\"method\":\"tool/call\",\"params\":{\"index\":1,\"requestId\":6,\"call\":{\"id\":\"s1\",\"name\":\"scout\",\"arguments\":{}}}}");
  oam_send (client, "{\"jsonrpc\":\"2.0\",\"id\":\"t-1\",\"result\":{\"output\":\"clear\"}}");
  oam_expect (client, "{\"jsonrpc\":\"2.0\",\"id\":6,\"result\":{\"results\":["
              "{\"optionID\":\"x\",\"reasoning\":\"\",\"confidence\":100,\"toolCalls\":[],\"usage\":{\"inputTokens\":0,\"cachedInputTokens\":0,\"outputTokens\":0,\"totalTokens\":0},\"isFallback\":false},"
              "{\"optionID\":\"b\",\"reasoning\":\"r\",\"confidence\":60,\"toolCalls\":[{\"call\":{\"id\":\"s1\",\"name\":\"scout\",\"arguments\":{}},\"output\":\"clear\",\"isError\":false,\"durationSeconds\":0}],\"usage\":{\"inputTokens\":114,\"cachedInputTokens\":0,\"outputTokens\":23,\"totalTokens\":137},\"isFallback\":false}]}}");
  g_assert_cmpint (oam_client_finish (client, NULL), ==, 0);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/oam/decision/decide", test_decide);
  g_test_add_func ("/oam/decision/decide/errors", test_decide_errors);
  g_test_add_func ("/oam/decision/decide/fallback", test_decide_fallback);
  g_test_add_func ("/oam/decision/decideMany", test_decide_many);
  g_test_add_func ("/oam/content/generate", test_content);
  g_test_add_func ("/oam/world/methods", test_world);
  g_test_add_func ("/oam/world/errors", test_world_errors);
  g_test_add_func ("/oam/world/generated-ids", test_world_limits);
  g_test_add_func ("/oam/npc/talk", test_npc_talk);
  g_test_add_func ("/oam/npc/talk/streamed-structured", test_npc_talk_streamed_structured);
  g_test_add_func ("/oam/npc/errors", test_npc_errors);
  g_test_add_func ("/oam/npc/bark-cancel-delete", test_npc_bark_cancel_delete);
  g_test_add_func ("/oam/npc/restore", test_npc_restore);
  g_test_add_func ("/oam/decision/decide/actor-npc", test_decide_as_npc);
  g_test_add_func ("/oam/npc/state-restore", test_npc_state_restore);
  g_test_add_func ("/oam/limits/config", test_limits_from_config);
  g_test_add_func ("/oam/npc/client-tool", test_npc_client_tool);
  g_test_add_func ("/oam/npc/background-compaction", test_npc_compaction);
  g_test_add_func ("/oam/decision/decideMany/tool-call", test_decide_many_tool_call);
  return g_test_run ();
}
