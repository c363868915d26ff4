#include <sonicsim/points/children.hpp>

#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstring>
#include <new>
#include <stdexcept>

#include <sonicsim/util/errors.hpp>
#include <sonicsim/util/files.hpp>

namespace sonicsim::points {

namespace {

std::string (*g_out_of_memory_message)() = nullptr;

// The first byte a child writes says how its work ended; the rest is the payload.
constexpr char kOk = 'R', kInputError = 'I', kFailure = 'F';

[[noreturn]] void child_main(int fd, std::size_t i,
                             const std::function<std::string(std::size_t)>& work) {
  // A crash must end the child with its signal for the parent to report, not run whatever
  // handler the parent installed (a test framework's, for one).
  for (int sig : {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT}) std::signal(sig, SIG_DFL);
  std::string message;
  int code = 0;
  try {
    message = kOk + work(i);
  } catch (const InputError& e) {
    message = kInputError + std::string(e.what());
    code = 2;
  } catch (const std::bad_alloc&) {
    message = kFailure +
              (g_out_of_memory_message ? g_out_of_memory_message() : std::string("memory ran out"));
    code = 1;
  } catch (const std::exception& e) {
    message = kFailure + std::string(e.what());
    code = 1;
  } catch (...) {
    message = kFailure + std::string("unknown exception");
    code = 1;
  }
  // A failed write means the parent is gone: nobody is left to tell.
  write_fully(fd, message);
  ::close(fd);
  ::_exit(code);
}

struct Running {
  pid_t pid;
  int fd;
  std::size_t index;
  std::string data;
};

ChildOutcome outcome_of(const std::string& data, int status) {
  ChildOutcome o;
  if (WIFSIGNALED(status)) {
    const int sig = WTERMSIG(status);
    o.error = "the simulation process was killed by signal " + std::to_string(sig) + " (" +
              ::strsignal(sig) + ")";
    return o;
  }
  const int code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  if (data.empty()) {
    o.error =
        "the simulation process exited with status " + std::to_string(code) + " without a result";
    return o;
  }
  const std::string payload = data.substr(1);
  if (data[0] == kOk && code == 0) {
    o.ok = true;
    o.output = payload;
  } else if (data[0] == kInputError) {
    o.input_error = true;
    o.error = payload;
  } else {
    o.error = data[0] == kFailure
                  ? payload
                  : "the simulation process exited with status " + std::to_string(code);
  }
  return o;
}

// Before giving up, leave no child behind unwaited.
void reap(std::vector<Running>& running) {
  for (const Running& r : running) {
    ::close(r.fd);
    int status = 0;
    while (::waitpid(r.pid, &status, 0) < 0 && errno == EINTR) {
    }
  }
  running.clear();
}

}  // namespace

void set_out_of_memory_message(std::string (*message)()) {
  g_out_of_memory_message = message;
}

int default_workers() {
  cpu_set_t set;
  CPU_ZERO(&set);
  if (::sched_getaffinity(0, sizeof set, &set) == 0) {
    const int n = CPU_COUNT(&set);
    if (n > 0) return n;
  }
  const long n = ::sysconf(_SC_NPROCESSORS_ONLN);
  return n > 0 ? static_cast<int>(n) : 1;
}

namespace {

bool drive(const std::vector<std::size_t>& indices,
           const std::function<std::string(std::size_t)>& work, const StreamHooks& hooks,
           int workers) {
  if (workers <= 0) workers = default_workers();
  std::vector<Running> running;
  std::size_t next = 0;
  const std::size_t n = indices.size();
  char buffer[65536];
  // Without a stop flag or a clock nothing needs waking but a child.
  const int timeout_ms = hooks.stop || hooks.on_tick ? 250 : -1;
  const auto stopped = [&] { return hooks.stop && *hooks.stop != 0; };

  while (next < n || !running.empty()) {
    if (stopped()) {
      for (const Running& r : running) ::kill(r.pid, SIGKILL);
      reap(running);
      return false;
    }
    while (next < n && running.size() < static_cast<std::size_t>(workers)) {
      int fds[2];
      if (::pipe(fds) != 0) {
        const int err = errno;
        reap(running);
        throw std::runtime_error(std::string("cannot create a pipe: ") + std::strerror(err));
      }
      const pid_t pid = ::fork();
      if (pid < 0) {
        const int err = errno;
        ::close(fds[0]);
        ::close(fds[1]);
        reap(running);
        throw std::runtime_error(std::string("cannot fork: ") + std::strerror(err));
      }
      if (pid == 0) {
        ::close(fds[0]);
        // Siblings' read ends came along with the fork; they are not ours to hold open.
        for (const Running& r : running) ::close(r.fd);
        child_main(fds[1], indices[next], work);
      }
      // Only the child may hold the write end, so that its exit is our end of file.
      ::close(fds[1]);
      running.push_back({pid, fds[0], indices[next], {}});
      ++next;
    }

    std::vector<pollfd> polls;
    for (const Running& r : running) polls.push_back({r.fd, POLLIN, 0});
    const int ready = ::poll(polls.data(), polls.size(), timeout_ms);
    if (ready < 0) {
      if (errno == EINTR) continue;
      const int err = errno;
      reap(running);
      throw std::runtime_error(std::string("poll failed: ") + std::strerror(err));
    }
    if (hooks.on_tick) hooks.on_tick();
    if (ready == 0) continue;
    for (std::size_t k = polls.size(); k-- > 0;) {
      if (!(polls[k].revents & (POLLIN | POLLHUP | POLLERR))) continue;
      Running& r = running[k];
      const ssize_t got = ::read(r.fd, buffer, sizeof buffer);
      if (got < 0 && errno == EINTR) continue;
      if (got > 0) {
        r.data.append(buffer, static_cast<std::size_t>(got));
        continue;
      }
      ::close(r.fd);
      int status = 0;
      while (::waitpid(r.pid, &status, 0) < 0 && errno == EINTR) {
      }
      const std::size_t index = r.index;
      ChildOutcome outcome = outcome_of(r.data, status);
      running.erase(running.begin() + static_cast<std::ptrdiff_t>(k));
      // A child that died with the user's Ctrl-C is an interruption, not a result.
      if (stopped()) continue;
      if (!hooks.on_done) continue;
      try {
        hooks.on_done(index, std::move(outcome));
      } catch (...) {
        // The caller cannot take more results (a full disk): leave no child behind.
        for (const Running& other : running) ::kill(other.pid, SIGKILL);
        reap(running);
        throw;
      }
    }
  }
  return true;
}

}  // namespace

std::vector<ChildOutcome> run_in_children(std::size_t n,
                                          const std::function<std::string(std::size_t)>& work,
                                          int workers) {
  std::vector<ChildOutcome> out(n);
  std::vector<std::size_t> indices(n);
  for (std::size_t i = 0; i < n; ++i) indices[i] = i;
  StreamHooks hooks;
  hooks.on_done = [&](std::size_t i, ChildOutcome&& o) { out[i] = std::move(o); };
  drive(indices, work, hooks, workers);
  return out;
}

bool run_in_children_streaming(const std::vector<std::size_t>& indices,
                               const std::function<std::string(std::size_t)>& work,
                               const StreamHooks& hooks, int workers) {
  return drive(indices, work, hooks, workers);
}

}  // namespace sonicsim::points
