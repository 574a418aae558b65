/* gamegate.h: the one header a plugin includes.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#define GAMEGATE_INSIDE
#include "gg-agent-turn.h"
#include "gg-bus.h"
#include "gg-child-process.h"
#include "gg-composite-tool.h"
#include "gg-config.h"
#include "gg-decision.h"
#include "gg-framed-stream.h"
#include "gg-frontend.h"
#include "gg-json.h"
#include "gg-jsonrpc-peer.h"
#include "gg-loopback-port.h"
#include "gg-model.h"
#include "gg-plugin.h"
#include "gg-schema.h"
#include "gg-secure.h"
#include "gg-target.h"
#include "gg-tool-invocation.h"
#undef GAMEGATE_INSIDE
