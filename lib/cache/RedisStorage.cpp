// The Redis client of the remote cache: hiredis, one blocking connection with bounded timeouts.
#include "cache/RemoteStorage.h"

#include "support/Error.h"

#include <hiredis/hiredis.h>

#include <cerrno>
#include <csignal>
#include <cstring>
#include <pthread.h>
#include <sys/time.h>

namespace tlc {
namespace {

timeval toTimeval(std::chrono::milliseconds duration) {
  timeval value;
  value.tv_sec = static_cast<time_t>(duration.count() / 1000);
  value.tv_usec = static_cast<suseconds_t>((duration.count() % 1000) * 1000);
  return value;
}

// hiredis writes with write(2): to a server that died, that raises SIGPIPE, which would end
// tlc. The signal is blocked in this thread around each command and one it raised discarded;
// ignoring it process-wide instead would pass SIG_IGN on to nvcc and every tool tlc runs.
class BlockSigpipe {
public:
  BlockSigpipe() {
    sigemptyset(&Pipe);
    sigaddset(&Pipe, SIGPIPE);
    sigset_t pending;
    sigpending(&pending);
    AlreadyPending = sigismember(&pending, SIGPIPE);
    pthread_sigmask(SIG_BLOCK, &Pipe, &Previous);
  }
  ~BlockSigpipe() {
    sigset_t pending;
    sigpending(&pending);
    if (!AlreadyPending && sigismember(&pending, SIGPIPE)) {
      timespec now = {0, 0};
      sigtimedwait(&Pipe, nullptr, &now);
    }
    pthread_sigmask(SIG_SETMASK, &Previous, nullptr);
  }

private:
  sigset_t Pipe, Previous;
  bool AlreadyPending;
};

struct ReplyDeleter {
  void operator()(redisReply* reply) const { freeReplyObject(reply); }
};
using Reply = std::unique_ptr<redisReply, ReplyDeleter>;

class RedisStorage : public RemoteStorage {
public:
  explicit RedisStorage(RemoteUrl url) : RemoteStorage(std::move(url)) {}
  ~RedisStorage() override {
    if (Context)
      redisFree(Context);
  }

  llvm::Expected<std::optional<std::string>> get(const std::string& key) override {
    auto reply = command({"GET", key});
    if (!reply)
      return reply.takeError();
    if ((*reply)->type == REDIS_REPLY_NIL)
      return std::nullopt;
    if ((*reply)->type != REDIS_REPLY_STRING)
      return inputError("unexpected reply to GET");
    return std::string((*reply)->str, (*reply)->len);
  }

  llvm::Error put(const std::string& key, const std::string& value) override {
    auto reply = command({"SET", key, value});
    if (!reply)
      return reply.takeError();
    return llvm::Error::success();
  }

private:
  llvm::Error connect() {
    Context = redisConnectWithTimeout(Url.host.c_str(), Url.port, toTimeval(Url.connectTimeout));
    if (!Context)
      return inputError("cannot allocate a Redis connection");
    if (Context->err)
      return inputError(std::string("cannot connect: ") + Context->errstr);
    if (redisSetTimeout(Context, toTimeval(Url.operationTimeout)) != REDIS_OK)
      return inputError(std::string("cannot set the timeout: ") + Context->errstr);
    if (!Url.password.empty()) {
      std::vector<std::string> auth = {"AUTH"};
      if (!Url.user.empty())
        auth.push_back(Url.user);
      auth.push_back(Url.password);
      if (auto reply = command(auth, false); !reply)
        return reply.takeError();
    }
    if (Url.database != 0)
      if (auto reply = command({"SELECT", std::to_string(Url.database)}, false); !reply)
        return reply.takeError();
    return llvm::Error::success();
  }

  // Runs one command (its arguments binary-safe); a Redis error reply is an error too.
  llvm::Expected<Reply> command(const std::vector<std::string>& arguments, bool connecting = true) {
    if (connecting && !Context)
      if (llvm::Error error = connect())
        return error;
    if (Context->err)
      return inputError(std::string("connection lost: ") + Context->errstr);
    BlockSigpipe guard;
    std::vector<const char*> argv;
    std::vector<size_t> lengths;
    for (const std::string& argument : arguments) {
      argv.push_back(argument.data());
      lengths.push_back(argument.size());
    }
    Reply reply(static_cast<redisReply*>(
        redisCommandArgv(Context, static_cast<int>(argv.size()), argv.data(), lengths.data())));
    if (!reply)
      return inputError(arguments.front() + " failed: " + failureReason());
    if (reply->type == REDIS_REPLY_ERROR)
      return inputError(arguments.front() + " failed: " + std::string(reply->str, reply->len));
    return reply;
  }

  // hiredis reports a read that timed out as the socket's EAGAIN.
  std::string failureReason() const {
    std::string reason = Context->errstr[0] ? Context->errstr : "no reply";
    if (Context->err == REDIS_ERR_IO && reason == std::strerror(EAGAIN))
      return "no reply within " + std::to_string(Url.operationTimeout.count()) + " ms";
    return reason;
  }

  redisContext* Context = nullptr;
};

} // namespace

std::unique_ptr<RemoteStorage> createRedisStorage(RemoteUrl url) {
  return std::make_unique<RedisStorage>(std::move(url));
}

} // namespace tlc
